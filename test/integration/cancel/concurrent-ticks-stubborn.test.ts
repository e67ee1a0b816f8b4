// Cancels racing three ticks at once, whose handlers ignore the signal and
// whose leases are renewed (extend) while they run: every cancel
// that answered cancelled or cancelling ends a cancelled job (the step that
// acks it read the marks its lease's `cancels` flag announced), and every
// CONFLICT one that succeeded. Nothing is counted twice.
import { describe, expect, it } from "vitest";
import { TickqError } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(adapterCases)("cancels racing concurrent ticks over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cancel-concurrent");

  it("each job ends with exactly the outcome its cancel's answer promised", async () => {
    // The cancels start once a handler runs: on a slow machine the ticks' first fetch can come after
    // cancels spread from the enqueue would all have ended, and none would meet a running job. That
    // first handler runs on until its own cancel has answered, so one cancel at least meets a running
    // handler, whatever the machine's speed.
    let running: () => void = () => {};
    const firstRunning = new Promise<void>((resolve) => (running = resolve));
    let first: string | undefined;
    const answered = new Map<string, () => void>();
    const answeredOf = new Map<string, Promise<void>>();
    const tq = h.make(
      {
        stubborn: async (_args: [], ctx) => {
          if (first === undefined) {
            first = ctx.jid;
            running();
            await answeredOf.get(ctx.jid);
          }
          await sleep(20 + Math.random() * 150);
          return "done";
        },
      },
      { keepCompleted: { count: 100 } },
    );
    const jids = await tq.enqueueBulk(
      Array.from({ length: 36 }, () => ({ name: "stubborn" as const, args: [] as [] })),
    );
    for (const jid of jids) answeredOf.set(jid, new Promise((resolve) => answered.set(jid, resolve)));
    // Leases renewed every cancelCheckMs while the handlers run, of the default length: the test needs
    // the renewals, not a short lease, which a loaded machine's stall could let lapse (the reports must
    // show none lost).
    const options = { budgetMs: 8_000, concurrency: 4, batch: 4, cancelCheckMs: 40, leaseMs: 30_000 };
    const ticking = Promise.all([tq.tick(options), tq.tick(options), tq.tick(options)]);
    await firstRunning;
    const answers = await Promise.all(
      jids.map(async (jid, k) => {
        await sleep(k * 8);
        return tq.jobs
          .cancel(jid)
          .then(
            (r) => r.state,
            (e: unknown) => (e instanceof TickqError ? e.code : String(e)),
          )
          .finally(() => answered.get(jid)!());
      }),
    );
    const reports = await ticking;
    const results = await Promise.all(jids.map((jid) => tq.jobs.result(jid)));
    answers.forEach((answer, k) => {
      if (answer === "CONFLICT") expect(results[k]?.state, jids[k]).toBe("succeeded");
      else {
        expect(["cancelled", "cancelling"], jids[k]).toContain(answer);
        expect(results[k]?.state, jids[k]).toBe("cancelled");
      }
    });
    const cancelled = results.filter((r) => r?.state === "cancelled").length;
    expect(answers[jids.indexOf(first!)]).toBe("cancelling");
    expect(cancelled + results.filter((r) => r?.state === "succeeded").length).toBe(jids.length);
    expect(Number(await h.redis.get(`${h.prefix}stat:cancelled`))).toBe(cancelled);
    expect(reports.reduce((n, r) => n + r.succeeded, 0)).toBe(jids.length - cancelled);
    expect(reports.every((r) => !r.leaseLost)).toBe(true);
  });
});
