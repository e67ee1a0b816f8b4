// A tick can claim a run again in the very call that ended its last
// execution there (a retry due at once, an event that arrived while it was
// held): the new execution's steps must still hear a cancel. The old
// execution's clean-up ran after the new one started and used to forget the
// new one's cancel switch, so its step's ctx.signal never aborted.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(adapterCases)("cancelling a run its tick claimed again over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-cancel-again");

  it("a step of the run's next execution in the same tick aborts on cancel", async () => {
    const seen: string[] = [];
    const tq = h.make(
      {},
      {
        workflows: {
          again: {
            backoff: () => 0,
            run: async (_: null, step) =>
              step.run("flaky", (ctx) => {
                seen.push(`try ${ctx.attempt}`);
                if (ctx.attempt === 1) throw new Error("the first try fails");
                return new Promise((resolve) => {
                  const timer = setTimeout(() => resolve("not aborted"), 4_000);
                  ctx.signal.addEventListener("abort", () => (clearTimeout(timer), resolve(seen.push("aborted"))));
                });
              }),
          },
        },
      },
    );
    const id = await tq.workflows.start("again", null);
    const ticking = tq.tick({ budgetMs: 8_000 });
    while (!seen.includes("try 2")) await pause(10);
    const asked = performance.now();
    expect(await tq.workflows.cancel(id)).toBe("cancelled");
    while (!seen.includes("aborted") && performance.now() - asked < 3_000) await pause(10);
    expect(seen).toEqual(["try 1", "try 2", "aborted"]);
    await ticking;
    expect((await tq.workflows.get(id))?.status).toBe("cancelled");
  });
});
