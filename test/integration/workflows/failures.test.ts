// A step that throws is retried with backoff (its own retry, else the
// workflow's); once its retries are spent the run fails with that step's
// error and onFailure is called once. A throw outside any step fails the
// run. Limits (a step's result, the steps of a run, the input) fail clearly.
import { describe, expect, it } from "vitest";
import { defineWorkflow, WorkflowFailedError } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const ticks = async (tq: { tick(o: { budgetMs: number }): Promise<unknown> }, n: number) => {
  for (let i = 0; i < n; i++) await tq.tick({ budgetMs: 1_000 });
};

describe.each(adapterCases)("workflow failures over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-fail");

  it("retries a failing step with the workflow's backoff, then goes on with its result", async () => {
    const attempts: number[] = [];
    const keys = new Set<string>();
    const tq = h.make(
      {},
      {
        workflows: {
          flaky: {
            retry: 3,
            backoff: () => 0,
            run: async (_: null, step) =>
              step.run("call", (ctx) => {
                attempts.push(ctx.attempt);
                keys.add(ctx.idempotencyKey);
                if (ctx.attempt < 3) throw new Error(`try ${ctx.attempt}`);
                return "ok";
              }),
          },
        },
      },
    );
    const id = await tq.workflows.start("flaky", null, { id: "f1" });
    await ticks(tq, 5);
    expect(await tq.workflows.result(id)).toBe("ok");
    expect(attempts).toEqual([1, 2, 3]);
    expect([...keys]).toEqual(["2:f1:step:call"]);
    expect((await tq.workflows.get(id))?.steps).toEqual([
      expect.objectContaining({ name: "call", status: "completed", attempts: 3, result: "ok" }),
    ]);
  });

  it("a retry waits for its backoff: not run before it is due", async () => {
    let runs = 0;
    const tq = h.make(
      {},
      {
        workflows: {
          slow: {
            backoff: () => 60_000,
            run: async (_: null, step) =>
              step.run("call", () => {
                runs++;
                throw new Error("down");
              }),
          },
        },
      },
    );
    const id = await tq.workflows.start("slow", null);
    await ticks(tq, 3);
    expect(runs).toBe(1);
    const run = await tq.workflows.get(id);
    expect(run?.status).toBe("running");
    expect(run?.steps[0]).toMatchObject({ status: "failed", attempts: 1, error: { name: "Error", message: "down" } });
  });

  it("fails the run with the step's error once its own retries are spent, and calls onFailure once", async () => {
    const failures: unknown[] = [];
    const tq = h.make(
      {},
      {
        workflows: {
          doomed: defineWorkflow({
            retry: 5,
            backoff: () => 0,
            run: async (_: { who: string }, step) => {
              await step.run("fine", () => 1);
              await step.run(
                "broken",
                () => {
                  throw new TypeError("no such user");
                },
                { retry: 1 },
              );
              return "never";
            },
            // Unannotated, after run: defineWorkflow types its input from run's.
            onFailure: (input, failure, step) => void failures.push([input.who, failure, step]),
          }),
        },
      },
    );
    const id = await tq.workflows.start("doomed", { who: "ann" });
    await ticks(tq, 4);
    const error = await tq.workflows.result(id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(error).toMatchObject({
      status: "failed",
      failure: { name: "TypeError", message: "no such user", step: "broken" },
    });
    expect(failures).toEqual([["ann", { name: "TypeError", message: "no such user", step: "broken" }, "broken"]]);
    const run = await tq.workflows.get(id);
    expect(run?.steps.map((s) => [s.name, s.status, s.attempts])).toEqual([
      ["fine", "completed", 1],
      ["broken", "failed", 1],
    ]);
  });

  it("a throw outside any step fails the run at once", async () => {
    const tq = h.make(
      {},
      {
        workflows: {
          bad: {
            run: async (input: { n: number }, step) => {
              const n = await step.run("read", () => input.n);
              if (n > 1) throw new RangeError("too big");
              return n;
            },
          },
        },
      },
    );
    const id = await tq.workflows.start("bad", { n: 2 });
    await ticks(tq, 1);
    expect(await tq.workflows.get(id)).toMatchObject({
      status: "failed",
      error: { name: "RangeError", message: "too big" },
    });
  });

  it("limits: a step result over 256 KB, a 1,001st step and an input over maxJobBytes fail with clear errors", async () => {
    const tq = h.make(
      {},
      {
        maxJobBytes: 2_048,
        workflows: {
          big: { run: async (_: null, step) => step.run("huge", () => "x".repeat(300 * 1024)) },
          many: {
            run: async (_: null, step) => {
              for (let i = 0; i < 1_001; i++) await step.run(`s${i}`, () => i);
            },
          },
        },
      },
    );
    const big = await tq.workflows.start("big", null);
    const many = await tq.workflows.start("many", null);
    await expect(tq.workflows.start("big", "y".repeat(3_000) as never)).rejects.toMatchObject({
      code: "JOB_TOO_LARGE",
    });
    // 1,001 steps over HTTP at a CI's load take tens of ticks: tick until the run ends, the test's timeout the bound.
    for (let i = 0; i < 200 && (await tq.workflows.get(many))?.status === "running"; i++) await ticks(tq, 1);
    expect((await tq.workflows.get(big))?.error).toMatchObject({
      step: "huge",
      message: expect.stringMatching(/at most 262144/),
    });
    const run = await tq.workflows.get(many);
    expect(run?.error?.message).toMatch(/at most 1000 steps; step "s1000" is one more/);
    expect(run?.steps).toHaveLength(1_000);
  }, 180_000);
});
