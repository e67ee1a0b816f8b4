// Starts racing with one id make one run: every start of the same workflow
// answers that id, a start of another workflow with it is a CONFLICT, the
// run keeps the input of one start, and it is counted once and runs once.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("concurrent starts of one run id over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-starts");

  it("twenty racing starts make one run, run once", async () => {
    let ran = 0;
    const tq = h.make(
      {},
      {
        workflows: {
          a: { run: async (input: number, step) => step.run("once", () => (ran++, input)) },
          b: { run: async () => null },
        },
      },
    );
    const answers = await Promise.allSettled([
      ...Array.from({ length: 20 }, (_, i) => tq.workflows.start("a", i, { id: "same" })),
      tq.workflows.start("b", null, { id: "same" }),
    ]);
    const ok = answers.filter((a) => a.status === "fulfilled").map((a) => a.value);
    const refused = answers.filter((a) => a.status === "rejected").map((a) => (a.reason as { code: string }).code);
    const run = await tq.workflows.get("same");
    if (run?.name === "a") {
      expect(ok).toEqual(Array.from({ length: 20 }, () => "same"));
      expect(refused).toEqual(["CONFLICT"]);
    } else {
      expect(ok).toEqual(["same"]);
      expect(refused).toEqual(Array.from({ length: 20 }, () => "CONFLICT"));
    }
    expect((await tq.stats()).workflows[run!.name]?.running).toBe(1);
    await tq.tick({ budgetMs: 1_000 });
    await tq.tick({ budgetMs: 500 });
    expect((await tq.workflows.get("same"))?.status).toBe("completed");
    expect(ran).toBe(run?.name === "a" ? 1 : 0);
    expect((await tq.workflows.list()).runs).toHaveLength(1);
  });
});
