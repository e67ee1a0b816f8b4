// A tick's report counts the workflow work it did — steps committed, runs
// completed, failed, parked, retrying — as it counts jobs, over one Redis and
// over partitions; a tick of an app with no workflow reports none.
import { describe, expect, it } from "vitest";
import type { WorkflowsOption } from "../../../src/workflows/types.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const workflows = {
  pair: { run: async (_: null, step) => [await step.run("a", () => 1), await step.run("b", () => 2)] },
  boom: {
    retry: 0,
    run: async (_: null, step) =>
      step.run("boom", () => {
        throw new Error("down");
      }),
  },
  flaky: {
    retry: 2,
    backoff: () => 60_000,
    run: async (_: null, step) =>
      step.run("flaky", () => {
        throw new Error("not yet");
      }),
  },
  nap: { run: async (_: null, step) => [await step.run("first", () => 1), await step.sleep("nap", "1h")] },
} satisfies WorkflowsOption<Record<"pair" | "boom" | "flaky" | "nap", null>>;

describe.each(adapterCases)("the tick report's workflow work over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-report");

  it.each([1, 3])(
    "counts steps committed and runs completed, failed, parked, retrying (%i partitions)",
    async (partitions) => {
      const tq = h.make({}, { workflows, partitions });
      for (let i = 0; i < 3; i++) await tq.workflows.start("pair", null);
      await tq.workflows.start("boom", null);
      await tq.workflows.start("flaky", null);
      await tq.workflows.start("nap", null);
      const report = await tq.tick({ budgetMs: 5_000 });
      expect(report.workflows).toEqual({
        steps: 7,
        completed: 3,
        failed: 1,
        parked: 1,
        retrying: 1,
        cancelled: 0,
        abandoned: 0,
        lost: 0,
      });
      expect(report.succeeded).toBe(0);
      const idle = await tq.tick({ budgetMs: 1_000 });
      expect(idle.workflows).toEqual({
        steps: 0,
        completed: 0,
        failed: 0,
        parked: 0,
        retrying: 0,
        cancelled: 0,
        abandoned: 0,
        lost: 0,
      });
    },
  );

  it("a tick of an app with no workflow reports no workflow work", async () => {
    const tq = h.make({ noop: async () => {} });
    await tq.enqueue("noop", []);
    const report = await tq.tick({ budgetMs: 1_000 });
    expect(report.succeeded).toBe(1);
    expect(report.workflows).toBeUndefined();
  });
});
