// A run alone pays at most a round trip a step: its step commits travel
// while its next steps run (src/workflows/commit-pipe.ts), so steps that end
// within a round trip of each other share a call, and its last steps ride
// with its end. Counted through the adapter (the ticks' roundTrips), begin
// and finish included.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("a lone workflow run's cost over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-lone");

  it("a lone 10-step run completes in at most 10 round trips, ticks included", async () => {
    const tq = h.make(
      {},
      {
        workflows: {
          ten: {
            run: async (_: null, step) => {
              let sum = 0;
              for (let i = 0; i < 10; i++) sum += await step.run(`s${i}`, () => i);
              return sum;
            },
          },
        },
      },
    );
    const id = await tq.workflows.start("ten", null);
    let trips = 0;
    for (let t = 0; t < 5 && (await tq.workflows.get(id))?.status !== "completed"; t++) {
      trips += (await tq.tick({ budgetMs: 5_000 })).roundTrips;
    }
    const run = await tq.workflows.get(id);
    expect(run?.output).toBe(45);
    expect(run?.steps.map((s) => [s.name, s.result])).toEqual(Array.from({ length: 10 }, (_, i) => [`s${i}`, i]));
    expect(trips).toBeLessThanOrEqual(10);
  });
});
