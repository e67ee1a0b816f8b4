// A tick whose finish failed (a Lua error, a transport that gave up) does not know whether the workflow
// commits that finish carried were stored. Its report counts those runs in `workflows.lost`, but its
// warning must not say Redis refused them as after a restart that forgot their claims
// (src/workflows/in-tick.ts): nothing was refused, and an operator would look for a restart that did not happen.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { failingFirstCall } from "../../helpers/failing-script.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("a workflow tick whose finish failed over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-finish-failed");

  it.each(["before", "after"] as const)(
    "finish failed %s Redis ran it: no warning of commits Redis refused",
    async (when) => {
      const { adapter, failed } = await failingFirstCall(h.adapter, "finish", when);
      const tq = h.make(
        {},
        { redis: adapter, workflows: { one: { run: async (_: null, step) => step.run("a", () => 1) } } },
      );
      await tq.workflows.start("one", null, { id: "r1" });
      const error = await tq.tick({ budgetMs: 2_000 }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(failed()).toBe(1);
      expect(error?.message).toContain("injected");
      expect(h.logged.filter((m) => m.includes("Redis refused the commits"))).toEqual([]);
    },
  );
});
