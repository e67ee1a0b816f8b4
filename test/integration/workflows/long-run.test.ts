// A run is not bound to one tick: a 200-step run goes through ticks of
// 2-second budgets, each doing the steps that fit, yielding at its budget
// and resuming in the next, every step run once.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(adapterCases)("a long workflow run over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-long");

  it("200 steps of 25 ms complete through ticks of 2-second budgets, each step run once", async () => {
    const runs = new Map<string, number>();
    const tq = h.make(
      {},
      {
        workflows: {
          long: {
            run: async (_: null, step) => {
              let sum = 0;
              for (let i = 0; i < 200; i++) {
                sum += await step.run(`s${i}`, async () => {
                  runs.set(`s${i}`, (runs.get(`s${i}`) ?? 0) + 1);
                  await pause(25);
                  return i;
                });
              }
              return sum;
            },
          },
        },
      },
    );
    const id = await tq.workflows.start("long", null);
    const ticks: number[] = [];
    for (let t = 0; t < 30 && (await tq.workflows.get(id))?.status !== "completed"; t++) {
      const report = await tq.tick({ budgetMs: 2_000 });
      ticks.push(report.durationMs);
      expect(report.durationMs).toBeLessThan(2_000 + 1_500);
    }
    expect(await tq.workflows.result(id, { timeoutMs: 100 })).toBe((199 * 200) / 2);
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect(runs.size).toBe(200);
  }, 60_000);
});
