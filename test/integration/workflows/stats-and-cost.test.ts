// stats().workflows counts each declared workflow's runs by status. The
// cost: an app that declares no workflow sends a tick's usual calls and no
// more (begin and finish for an empty tick), and one that does claims in
// begin and adds one workflow call per exchange, its last commits riding on
// finish; runs advancing together share calls.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("workflow stats and cost over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-stats");

  it("stats().workflows counts runs by status, per declared workflow", async () => {
    const tq = h.make(
      {},
      {
        workflows: {
          nap: { run: async (_: null, step) => step.sleep("nap", "1h") },
          ok: { run: async () => 1 },
          bad: {
            run: async () => {
              throw new Error("no");
            },
          },
          idle: { run: async () => 1 },
        },
      },
    );
    for (const name of ["nap", "nap", "ok", "bad"] as const) await tq.workflows.start(name, null);
    expect((await tq.stats()).workflows.nap).toMatchObject({ running: 2, sleeping: 0 });
    await tq.tick({ budgetMs: 1_000 });
    const { workflows } = await tq.stats();
    const none = { running: 0, sleeping: 0, waiting: 0, completed: 0, failed: 0, cancelled: 0 };
    expect(workflows).toEqual({
      nap: { ...none, sleeping: 2 },
      ok: { ...none, completed: 1 },
      bad: { ...none, failed: 1 },
      idle: none,
    });
  });

  it("workflow.completed and workflow.failed fire once per run, after its end is committed", async () => {
    const seen: unknown[] = [];
    const tq = h.make(
      {},
      {
        on: { "workflow.completed": (e) => void seen.push(["completed", e]) },
        workflows: {
          ok: { run: async (input: { n: number }) => input.n * 2 },
          bad: {
            run: async () => {
              throw new Error("no");
            },
          },
        },
      },
    );
    tq.on("workflow.failed", async (e) => void seen.push(["failed", e]));
    const ok = await tq.workflows.start("ok", { n: 2 });
    const bad = await tq.workflows.start("bad", null);
    await tq.tick({ budgetMs: 1_000 });
    await tq.tick({ budgetMs: 1_000 });
    expect(seen).toHaveLength(2);
    expect(seen).toContainEqual(["completed", { runId: ok, name: "ok", output: 4 }]);
    expect(seen).toContainEqual(["failed", { runId: bad, name: "bad", error: { name: "Error", message: "no" } }]);
  });

  it("an app with no workflow sends no workflow call; one with workflows shares calls among runs", async () => {
    const plain = h.make({ noop: () => {} });
    expect((await plain.tick({ budgetMs: 500 })).roundTrips).toBe(2);
    const tq = h.make(
      {},
      {
        workflows: {
          three: {
            run: async (_: null, step) => {
              for (let i = 0; i < 3; i++) await step.run(`s${i}`, () => i);
            },
          },
        },
      },
    );
    // The claim rides on begin: a tick that finds no run due sends no workflow call either.
    expect((await tq.tick({ budgetMs: 500 })).roundTrips).toBe(2);
    for (let i = 0; i < 10; i++) await tq.workflows.start("three", null);
    const report = await tq.tick({ budgetMs: 5_000 });
    expect((await tq.stats()).workflows.three?.completed).toBe(10);
    // 30 steps and 10 outputs: one claim, then calls that each carry a step (or the output) of every run.
    expect(report.roundTrips - 2).toBeLessThanOrEqual(6);
  });

  it("a tick of batch 100 claims 20 runs a call, and each call carries a step of every run it holds", async () => {
    const tq = h.make(
      {},
      {
        workflows: {
          three: {
            run: async (_: null, step) => {
              for (let i = 0; i < 3; i++) await step.run(`s${i}`, () => i);
            },
          },
        },
      },
    );
    await tq.workflows.startBulk(Array.from({ length: 100 }, () => ({ name: "three" as const, input: null })));
    const report = await tq.tick({ budgetMs: 10_000, batch: 100 });
    expect((await tq.stats()).workflows.three?.completed).toBe(100);
    // begin (20 claimed), calls that each commit a step of every run held and claim 20 more, finish (the
    // last outputs): 9 requests; when a call carried 20 runs' commits (claims included) it took 25 or 26.
    expect(report.roundTrips).toBeLessThanOrEqual(10);
  });
});
