// A tick holds a batch of runs at once (each mostly waits for its last step's
// commit), so one workflow call carries a step of each, but runs at most
// `concurrency` step functions at once (src/workflows/pass.ts, in-tick.ts).
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("runs held and step slots over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-slots");

  it("holds a batch of runs and never runs more than `concurrency` step functions at once", async () => {
    let running = 0;
    let most = 0;
    const tq = h.make(
      {},
      {
        workflows: {
          three: {
            run: async (_: null, step) => {
              for (let i = 0; i < 3; i++) {
                await step.run(`s${i}`, async () => {
                  most = Math.max(most, ++running);
                  // Other runs' steps get their turn before this one ends.
                  await new Promise((resolve) => setImmediate(resolve));
                  running--;
                });
              }
            },
          },
        },
      },
    );
    const ids = await tq.workflows.startBulk(
      Array.from({ length: 30 }, () => ({ name: "three" as const, input: null })),
    );
    const report = await tq.tick({ budgetMs: 10_000, batch: 30, concurrency: 3 });
    expect(report.workflows).toMatchObject({ steps: 90, completed: 30 });
    expect(most).toBe(3);
    for (const id of [ids[0]!, ids[29]!]) expect((await tq.workflows.get(id))?.status).toBe("completed");
  });

  it("a call with every held run waiting on its commit claims nothing and leaves the due runs for later", async () => {
    const tq = h.make(
      {},
      {
        workflows: {
          two: {
            run: async (_: null, step) => {
              await step.run("a", () => 1);
              await step.run("b", () => 2);
            },
          },
        },
      },
    );
    await tq.workflows.startBulk(Array.from({ length: 5 }, () => ({ name: "two" as const, input: null })));
    // Two runs held at once (batch 2): the other three wait for the slots their ends free.
    const report = await tq.tick({ budgetMs: 10_000, batch: 2, concurrency: 1 });
    expect(report.workflows).toMatchObject({ steps: 10, completed: 5 });
    expect(report.more).toBe(false);
  });
});
