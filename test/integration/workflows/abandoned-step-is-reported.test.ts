// A step whose work honours ctx.signal but whose tail does not (a write after
// its effect, say) can end after the tick's deadline and graceMs: the tick
// leaves its execution, commits nothing of it, keeps its lease and returns;
// the run stays the tick's until the lease expires, then runs the step again.
// That tick's report must say so (`workflows.abandoned`): a caller that takes
// "lease kept, nothing abandoned" as "every step that succeeded is committed"
// (the chaos rollback worker does) would otherwise count a rerun as a lost ack.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(adapterCases)("a workflow step that ends past the grace over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-abandoned");

  it("its tick reports the execution abandoned, commits none of it, and a later tick runs the step again", async () => {
    let starts = 0;
    let successes = 0;
    const tq = h.make(
      {},
      {
        workflows: {
          tail: {
            run: async (_: null, step) => [
              await step.run("a", async () => {
                starts++;
                // The work ends before the deadline; its bookkeeping (not abortable) ends past it and the grace.
                await pause(starts === 1 ? 600 : 0);
                successes++;
                return "a";
              }),
              await step.run("b", () => "b"),
            ],
          },
        },
      },
    );
    const id = await tq.workflows.start("tail", null);
    const report = await tq.tick({ budgetMs: 400, graceMs: 50, leaseMs: 500 });
    expect(report.leaseLost).toBe(false);
    expect(report.abandoned).toBe(0); // jobs: none
    expect(report.workflows).toMatchObject({ steps: 0, abandoned: 1 });
    await pause(700); // the step's success lands after its tick left it; then the lease expires
    expect(successes).toBe(1);
    for (let i = 0; i < 3 && (await tq.workflows.get(id))?.status !== "completed"; i++) {
      await tq.tick({ budgetMs: 2_000 });
      if ((await tq.workflows.get(id))?.status !== "completed") await pause(1_100); // the held check's period
    }
    expect(await tq.workflows.result(id, { timeoutMs: 100 })).toEqual(["a", "b"]);
    expect(starts).toBe(2);
  });
});
