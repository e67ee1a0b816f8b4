// A program can start a run and wait for it with no cron: `start(…, { kick:
// true })` kicks a tick as enqueue does (in the scope's waitUntil), the
// scope's kick default applies to starts as to enqueues, and `result(…, {
// drive: true })` runs ticks while it waits, across sleeps, over one Redis
// and over partitions. Without either, nothing moves the run.
import { describe, expect, it } from "vitest";
import type { WorkflowsOption } from "../../../src/workflows/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const workflows = {
  quick: { run: async (input: { n: number }, step) => step.run("double", () => input.n * 2) },
  napper: {
    run: async (_: null, step) => {
      const before = await step.run("before", () => "a");
      await step.sleep("nap", 300);
      return [before, await step.run("after", () => "b")];
    },
  },
} satisfies WorkflowsOption<{ quick: { n: number }; napper: null }>;

describe.each(adapterCases)("starting with a kick, waiting with drive, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-drive");

  it("start with kick: true runs the run in a kicked tick of the scope", async () => {
    const kicked: Promise<unknown>[] = [];
    const tq = h.make({}, { workflows }).scope({ waitUntil: (p) => void kicked.push(p) });
    const id = await tq.workflows.start("quick", { n: 21 }, { kick: true });
    expect(kicked).toHaveLength(1);
    await Promise.all(kicked);
    expect((await tq.workflows.get(id))?.output).toBe(42);
  });

  it("a scope that kicks by default kicks on start; kick: false and a plain start do not", async () => {
    const kicked: Promise<unknown>[] = [];
    const base = h.make({}, { workflows });
    const kicking = base.scope({ waitUntil: (p) => void kicked.push(p), kick: true });
    await kicking.workflows.start("quick", { n: 1 }, { kick: false });
    await base.scope({ waitUntil: (p) => void kicked.push(p) }).workflows.start("quick", { n: 2 });
    expect(kicked).toHaveLength(0);
    const id = await kicking.workflows.start("quick", { n: 3 });
    expect(kicked).toHaveLength(1);
    await Promise.all(kicked);
    expect((await base.workflows.get(id))?.output).toBe(6);
  });

  it.each([1, 2])(
    "result with drive: true ticks until the run ends, across its sleep (%i partitions)",
    async (partitions) => {
      const tq = h.make({}, { workflows, partitions });
      const id = await tq.workflows.start("napper", null);
      expect(await tq.workflows.result(id, { drive: true, timeoutMs: 10_000 })).toEqual(["a", "b"]);
    },
  );

  it("result without drive only reads: a run nobody ticks stays where it is", async () => {
    const tq = h.make({}, { workflows });
    const id = await tq.workflows.start("quick", { n: 1 });
    await expect(tq.workflows.result(id, { timeoutMs: 300 })).rejects.toMatchObject({ code: "WORKFLOW_TIMEOUT" });
    await pause(50);
    expect((await tq.workflows.get(id))?.steps).toEqual([]);
  });
});
