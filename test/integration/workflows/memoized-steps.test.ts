// A workflow run replays from the top in each execution, and a completed
// step answers its stored result without running again: a step's function
// runs once however many times the run is replayed. A run goes on in later
// ticks; `start` is idempotent by id; get, result and list read runs.
import { describe, expect, it } from "vitest";
import { TickqError } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("workflow steps over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-memo");

  it("runs each step's function once while the run is replayed ten times, and keeps results as JSON", async () => {
    const calls: Record<string, number> = {};
    const count = (name: string) => (calls[name] = (calls[name] ?? 0) + 1);
    const tq = h.make(
      {},
      {
        workflows: {
          ten: {
            retry: 0,
            run: async (input: { n: number }, step) => {
              let total = 0;
              for (let i = 0; i < 10; i++) {
                const got = await step.run(`s${i}`, () => {
                  count(`s${i}`);
                  return { i, at: new Date(0) };
                });
                total += got.i;
                // A sleep of 0 ms parks the run: the next step runs in a new execution, replayed from the top.
                await step.sleep(`pause${i}`, 0);
              }
              return { total: total + input.n };
            },
          },
        },
      },
    );
    const runId = await tq.workflows.start("ten", { n: 100 });
    // @ts-expect-error: start is typed by the workflow's input
    await expect(tq.workflows.start("ten", { n: "100" }, { id: runId })).resolves.toBe(runId);
    for (let t = 0; t < 15; t++) await tq.tick({ budgetMs: 2_000 });
    expect(await tq.workflows.result(runId, { timeoutMs: 1_000 })).toEqual({ total: 145 });
    expect(calls).toEqual(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`s${i}`, 1])));
    const run = await tq.workflows.get(runId);
    expect(run?.status).toBe("completed");
    expect(run?.steps.map((s) => s.name)).toEqual(Array.from({ length: 10 }, (_, i) => [`s${i}`, `pause${i}`]).flat());
    expect(run?.steps[0]).toMatchObject({
      status: "completed",
      attempts: 1,
      result: { i: 0, at: "1970-01-01T00:00:00.000Z" },
    });
  });

  it("start with the same id answers the same run; another workflow's id is a CONFLICT; an unknown name is UNKNOWN_JOB", async () => {
    const tq = h.make({}, { workflows: { a: { run: async () => 1 }, b: { run: async () => 2 } } });
    expect(await tq.workflows.start("a", null, { id: "r1" })).toBe("r1");
    expect(await tq.workflows.start("a", { other: true }, { id: "r1" })).toBe("r1");
    expect((await tq.workflows.get("r1"))?.input).toBeNull();
    await expect(tq.workflows.start("b", null, { id: "r1" })).rejects.toMatchObject({ code: "CONFLICT" });
    const unknown = tq.workflows.start("nope" as "a", null);
    await expect(unknown).rejects.toBeInstanceOf(TickqError);
    await expect(unknown).rejects.toMatchObject({ code: "UNKNOWN_JOB" });
    await tq.tick({ budgetMs: 1_000 });
    expect(await tq.workflows.result("r1")).toBe(1);
    expect((await tq.workflows.list({ status: "completed" })).runs.map((r) => r.id)).toEqual(["r1"]);
  });

  it("lists runs newest first by status and name, page by page", async () => {
    const tq = h.make({}, { workflows: { a: { run: async () => 1 }, b: { run: async () => 2 } } });
    for (let i = 0; i < 5; i++) await tq.workflows.start(i % 2 ? "a" : "b", i, { id: `r${i}` });
    const first = await tq.workflows.list({ limit: 2 });
    expect(first.runs.map((r) => r.id)).toEqual(["r4", "r3"]);
    const second = await tq.workflows.list({ limit: 2, cursor: first.cursor });
    expect(second.runs.map((r) => r.id)).toEqual(["r2", "r1"]);
    const last = await tq.workflows.list({ limit: 2, cursor: second.cursor });
    expect(last).toEqual({ runs: [expect.objectContaining({ id: "r0", name: "b", status: "running" })] });
    expect((await tq.workflows.list({ name: "a" })).runs.map((r) => r.id)).toEqual(["r3", "r1"]);
    await expect(tq.workflows.list({ status: "nope" as "running" })).rejects.toMatchObject({ code: "BAD_STATE" });
  });
});
