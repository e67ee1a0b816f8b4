// tq.workflows.startAndWait: the tick's begin starts the run and claims it, so a lone run of S steps
// costs S + 2 requests (begin, a commit a step, finish carrying its end), one fewer than start and a
// tick, and its output comes from the tick that committed it (no read after). An id taken by
// another workflow is refused; the same id again answers that run; a failed run throws; a run that
// outlasts the tick (a sleep) is driven to its end; over partitions too.
import { describe, expect, it } from "vitest";
import { WorkflowFailedError } from "../../../src/index.js";
import { scripts } from "../../../src/lua/index.js";
import { scriptSha } from "../../../src/redis/script-sha.js";
import type { RedisAdapter } from "../../../src/redis/types.js";
import type { WorkflowsOption } from "../../../src/workflows/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const STEPS = 10;
const workflows = {
  ten: {
    run: async (n: number, step) => {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += await step.run(`s${i}`, () => i);
      return sum;
    },
  },
  other: { run: async () => "other" },
  bad: {
    retry: 0,
    run: async (_: null, step) =>
      step.run("boom", () => {
        throw new Error("no");
      }),
  },
  napper: {
    run: async (_: null, step) => {
      const before = await step.run("before", () => "a");
      await step.sleep("nap", 200);
      return [before, await step.run("after", () => "b")];
    },
  },
} satisfies WorkflowsOption<{ ten: number; other: null; bad: null; napper: null }>;

/** The adapter, and the scripts it was asked to run, by name, in order (EVAL and EVALSHA alike). */
async function namingAdapter(base: RedisAdapter): Promise<{ adapter: RedisAdapter; calls: string[] }> {
  const names = new Map<string, string>();
  for (const [name, script] of Object.entries(scripts)) names.set(await scriptSha(script), name);
  const byText = new Map(Object.entries(scripts).map(([name, script]) => [script.text, name]));
  const calls: string[] = [];
  return {
    calls,
    adapter: {
      ...base,
      evalsha: (sha, keys, args) => (calls.push(names.get(sha) ?? sha), base.evalsha(sha, keys, args)),
      eval: (text, keys, args) => (calls.push(`EVAL ${byText.get(text) ?? "?"}`), base.eval(text, keys, args)),
    },
  };
}

describe.each(adapterCases)("workflows.startAndWait over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-start-wait");

  it("a lone 10-step run sends begin (its start and claim), one commit a step and finish: one request fewer than start and a tick", async () => {
    const { adapter, calls } = await namingAdapter(h.adapter);
    // No extend on a slow machine: a lease of a minute checks it every 20 s.
    const tick = { leaseMs: 60_000, cancelCheckMs: 60_000 };
    const tq = h.make({}, { redis: adapter, workflows, kick: { tick } });
    // Every script once first, so no call below is a NOSCRIPT miss and its EVAL.
    await tq.workflows.startAndWait("ten", STEPS);
    const started = await tq.workflows.start("ten", STEPS);
    await tq.tick({ ...tick, budgetMs: 10_000 });
    await tq.workflows.get(started);
    calls.length = 0;

    expect(await tq.workflows.startAndWait("ten", STEPS)).toBe(45);
    expect(calls).toEqual(["begin", ...Array(STEPS).fill("workflow_tick"), "finish"]);

    calls.length = 0;
    const id = await tq.workflows.start("ten", STEPS);
    await tq.tick({ ...tick, budgetMs: 10_000 });
    expect(calls).toEqual(["workflow_start", "begin", ...Array(STEPS).fill("workflow_tick"), "finish"]);
    expect((await tq.workflows.get(id))?.output).toBe(45);
  });

  it("the run is stored as start stores it: its steps committed, its output read back the same", async () => {
    const tq = h.make({}, { workflows });
    expect(await tq.workflows.startAndWait("ten", 3, { id: "r1" })).toBe(3);
    const run = await tq.workflows.get("r1");
    expect(run).toMatchObject({ name: "ten", status: "completed", input: 3, output: 3 });
    expect(run?.steps.map((s) => [s.name, s.status, s.result])).toEqual([
      ["s0", "completed", 0],
      ["s1", "completed", 1],
      ["s2", "completed", 2],
    ]);
  });

  it("the same id again answers that run's output and runs no step again", async () => {
    let ran = 0;
    const tq = h.make({}, { workflows: { once: { run: async (_: null, step) => step.run("only", () => ++ran) } } });
    expect(await tq.workflows.startAndWait("once", null, { id: "same" })).toBe(1);
    expect(await tq.workflows.startAndWait("once", null, { id: "same" })).toBe(1);
    expect(ran).toBe(1);
  });

  it("an id held by another workflow's run: CONFLICT, and that run is left as it was", async () => {
    const tq = h.make({}, { workflows });
    await tq.workflows.start("other", null, { id: "taken" });
    await expect(tq.workflows.startAndWait("ten", 2, { id: "taken" })).rejects.toMatchObject({ code: "CONFLICT" });
    const run = await tq.workflows.get("taken");
    expect(run).toMatchObject({ name: "other", input: null });
  });

  it("a tick refused by maxParallel (a slot held) still starts the run; a later tick runs it", async () => {
    const tq = h.make({}, { workflows, kick: { tick: { maxParallel: 1 } } });
    const [held] = await tq.reserveTicks(1, 1);
    await expect(tq.workflows.startAndWait("ten", 3, { id: "later", timeoutMs: 300 })).rejects.toMatchObject({
      code: "WORKFLOW_TIMEOUT",
    });
    expect((await tq.workflows.get("later"))?.status).toBe("running");
    await tq.tick({ tickId: held!, maxParallel: 1 });
    expect(await tq.workflows.result("later")).toBe(3);
  });

  it("a run that fails throws WorkflowFailedError", async () => {
    const tq = h.make({}, { workflows });
    const failed = await tq.workflows.startAndWait("bad", null).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(WorkflowFailedError);
    expect(failed).toMatchObject({ status: "failed" });
  });

  it.each([1, 2])("a run that sleeps past its first tick is driven to its end (%i partitions)", async (partitions) => {
    const tq = h.make({}, { workflows, partitions });
    expect(await tq.workflows.startAndWait("napper", null, { timeoutMs: 10_000 })).toEqual(["a", "b"]);
  });
});
