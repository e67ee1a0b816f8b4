// A job with a timeoutMs whose handler (or a plain, not async, middleware)
// throws before it returns fails that attempt, retried, and leaves nothing
// behind: no timer that later aborts a run long over, no "ignored the abort
// ... may still be running" warning for it, no unhandled rejection of a
// TickqTimeout (which would end a Node process), no listener on the tick's
// signal (test/unit/timed-run-throwing-at-once.test.ts).
import { expect, it } from "vitest";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";
import { collectUnhandledRejections } from "../../helpers/leftovers.js";

const TIMEOUT_MS = 100;
const GRACE_MS = 50;

describeOverAdapters(adapterCases, "a timed job that throws at once over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "timed-throw");
  const unhandled = collectUnhandledRejections();

  /** Waits past the job's timeoutMs and grace, when a timer left behind would fire. */
  const pastTheLimit = () => sleep(TIMEOUT_MS + GRACE_MS + 200);

  it("fails the attempt and leaves no timer, warning or unhandled rejection behind", async () => {
    const tq = h.make({
      boom: {
        timeoutMs: TIMEOUT_MS,
        perform: () => {
          throw new Error("at once");
        },
      },
    });
    await tq.enqueue("boom", []);
    const report = await tq.tick({ budgetMs: 2_000, graceMs: GRACE_MS });
    expect(report).toMatchObject({ failed: 1, retried: 1, succeeded: 0 });
    await pastTheLimit();
    expect(unhandled).toEqual([]);
    expect(h.logged.join("\n")).not.toMatch(/ignored the abort/);
    const [entry] = await h.redis.zrange(`${h.prefix}retry`, "0", "-1");
    expect(JSON.parse(entry!)).toMatchObject({ error_class: "Error", error_message: "at once" });
  });

  it("does the same when a plain middleware throws before calling next", async () => {
    let ran = false;
    const tq = h.make({ quiet: { timeoutMs: TIMEOUT_MS, perform: () => void (ran = true) } });
    tq.use(() => {
      throw new Error("refused");
    });
    await tq.enqueue("quiet", []);
    const report = await tq.tick({ budgetMs: 2_000, graceMs: GRACE_MS });
    expect(report).toMatchObject({ failed: 1, retried: 1 });
    expect(ran).toBe(false);
    await pastTheLimit();
    expect(unhandled).toEqual([]);
    expect(h.logged.join("\n")).not.toMatch(/ignored the abort/);
  });
});
