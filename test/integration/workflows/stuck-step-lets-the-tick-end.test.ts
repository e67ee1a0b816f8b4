// A step that ignores ctx.signal and never settles must not hold its tick
// past the budget and the grace: the tick ends as it does for a job handler
// that ignores the abort, and the run goes to another tick once the lease is
// gone (its late commit, if the step ever ends, is refused by the fence).
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(adapterCases)("a stuck workflow step over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-stuck");

  it("the tick ends within its budget and grace; a later tick runs the step again", async () => {
    let tries = 0;
    const tq = h.make(
      {},
      {
        workflows: {
          stuck: {
            run: async (_: null, step) =>
              step.run("forever", (ctx) => (++tries === 1 ? new Promise(() => {}) : `try ${ctx.attempt}`)),
          },
        },
      },
    );
    const id = await tq.workflows.start("stuck", null);
    const began = performance.now();
    const report = await Promise.race([
      tq.tick({ budgetMs: 1_000, graceMs: 200, leaseMs: 500 }),
      new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 4_000)),
    ]);
    expect(report).not.toBe("hung");
    expect(performance.now() - began).toBeLessThan(2_500);
    expect(h.logged.join("\n")).toMatch(/ignored its aborted signal/);
    await pause(600); // the lease left to expire
    await tq.tick({ budgetMs: 1_000 });
    expect(await tq.workflows.result(id, { timeoutMs: 100 })).toBe("try 1");
  });
});
