// An onFailure handler that never settles must not hold its tick for ever:
// at the tick's deadline and graceMs it is left (logged), and the run is
// marked failed, as when the handler throws.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("a stuck onFailure over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-stuck-failure");

  it("the tick ends within its budget and grace, and the run is failed", async () => {
    let called = 0;
    const tq = h.make(
      {},
      {
        workflows: {
          doomed: {
            run: async () => {
              throw new Error("boom");
            },
            onFailure: () => {
              called++;
              return new Promise<void>(() => {});
            },
          },
        },
      },
    );
    const id = await tq.workflows.start("doomed", null);
    const began = performance.now();
    const report = await Promise.race([
      tq.tick({ budgetMs: 1_000, graceMs: 200 }),
      new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 4_000)),
    ]);
    expect(report).not.toBe("hung");
    expect(performance.now() - began).toBeLessThan(2_500);
    expect(called).toBe(1);
    expect(await tq.workflows.get(id)).toMatchObject({ status: "failed", error: { message: "boom" } });
    expect(h.logged.join("\n")).toMatch(/onFailure did not settle/);
  });
});
