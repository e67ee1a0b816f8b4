// step.invokeWorkflow starts a child run and resolves to its output. The
// child's failure fails the step, and a retried step starts a new child
// (`id` names the first try's, `ID:TRY` the next); cancelling the parent
// cancels its children that have not ended, so none is left running; with
// partitions the child lives in the partition of its own id.
import { expect, it } from "vitest";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describeOverAdapters(adapterCases, "child workflows over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-child");

  const workflows = {
    double: {
      run: async (input: number, step: import("../../../src/index.js").WorkflowStep) => step.run("x2", () => input * 2),
    },
    broken: {
      retry: 0,
      run: async (input: string, step: import("../../../src/index.js").WorkflowStep) =>
        step.run("boom", (): string => {
          throw new Error(`broken ${input}`);
        }),
    },
    nap: { run: async (_: null, step: import("../../../src/index.js").WorkflowStep) => step.sleep("long", "1h") },
    parent: {
      backoff: () => 0,
      run: async (input: { child: string; id?: string }, step: import("../../../src/index.js").WorkflowStep) => {
        const input2 = input.child === "double" ? 21 : input.child === "broken" ? "x" : null;
        const out = await step.invokeWorkflow<number>("child", input.child, input2, {
          retry: 1,
          ...(input.id === undefined ? {} : { id: input.id }),
        });
        return step.run("after", () => out);
      },
    },
  };

  it("resolves to the child's output", async () => {
    const tq = h.make({}, { workflows });
    const id = await tq.workflows.start("parent", { child: "double" });
    expect(await tq.workflows.result(id, { timeoutMs: 10_000, drive: true })).toBe(42);
    const children = (await tq.workflows.list({ name: "double" })).runs;
    expect(children).toHaveLength(1);
    expect(children[0]!.id).toMatch(/^wfc-[0-9a-f]{40}-1$/);
  });

  it("a failed child fails the step; the retry starts a new child, named ID then ID:2", async () => {
    const tq = h.make({}, { workflows });
    const id = await tq.workflows.start("parent", { child: "broken", id: "kid" });
    await expect(tq.workflows.result(id, { timeoutMs: 10_000, drive: true })).rejects.toThrow(/failed/);
    const run = await tq.workflows.get(id);
    expect(run?.error).toMatchObject({
      step: "child",
      message: expect.stringMatching(/workflow broken \(kid:2\) ended failed: broken x/),
    });
    expect((await tq.workflows.list({ name: "broken" })).runs.map((r) => [r.id, r.status]).sort()).toEqual([
      ["kid", "failed"],
      ["kid:2", "failed"],
    ]);
  });

  it("cancelling the parent mid-child leaves no live child", async () => {
    const tq = h.make({}, { workflows });
    const id = await tq.workflows.start("parent", { child: "nap", id: "sleeper" });
    for (let i = 0; i < 20 && (await tq.workflows.get("sleeper"))?.status !== "sleeping"; i++)
      await tq.tick({ budgetMs: 300 });
    expect((await tq.workflows.get("sleeper"))?.status).toBe("sleeping");
    expect(await tq.workflows.cancel(id)).toBe("cancelled");
    expect((await tq.workflows.get("sleeper"))?.status).toBe("cancelled");
  });

  it("with partitions, the child lives in the partition of its id and the parent gets its output", async () => {
    const tq = h.make({}, { workflows, partitions: 3 });
    const ids = await Promise.all(
      ["a", "b", "c", "d"].map((k) =>
        tq.workflows.start("parent", { child: "double", id: `kid-${k}` }, { id: `p-${k}` }),
      ),
    );
    // Ticks of every partition (a driving result ticks its run's partition
    // alone). A tick returns once it has nothing to do, so a long budget only
    // keeps a busy machine's tick from ending before its step does.
    for (let i = 0; i < 100; i++) {
      const runs = await Promise.all(ids.map((id) => tq.workflows.get(id)));
      if (runs.every((r) => r?.status === "completed")) break;
      await tq.tick({ budgetMs: 5_000 });
    }
    for (const id of ids) expect((await tq.workflows.get(id))?.output).toBe(42);
    for (const k of ["a", "b", "c", "d"]) expect((await tq.workflows.get(`kid-${k}`))?.output).toBe(42);
  });
});
