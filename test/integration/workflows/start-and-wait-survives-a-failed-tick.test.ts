// tq.workflows.startAndWait whose tick fails after its begin started the run (its finish or a
// housekeeping call refused: a Lua error, a partition past the tick's patience): the run exists, so startAndWait goes on from
// it as `result` with drive does, and answers its output. Throwing the tick's error instead left a
// caller with no id (the id is drawn inside) unable to reach the run: one that tries again starts a
// second run, whose steps run again.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { failingFirstCall } from "../../helpers/failing-script.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("startAndWait whose tick fails after begin over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-saw-fail");

  it.each(["finish", "housekeep"] as const)(
    "%s refused: answers the run's output, and the run's step ran once",
    async (script) => {
      let ran = 0;
      const { adapter, failed: refused } = await failingFirstCall(h.adapter, script, "before");
      // Two scheduled jobs due and a begin that promotes one: housekeeping is left for a call of its own.
      await h.redis.zadd(
        `${h.prefix}schedule`,
        1,
        JSON.stringify({ class: "x", args: [1], jid: "s1", queue: "default" }),
      );
      await h.redis.zadd(
        `${h.prefix}schedule`,
        1,
        JSON.stringify({ class: "x", args: [2], jid: "s2", queue: "default" }),
      );
      const tq = h.make(
        { x: () => {} },
        {
          redis: adapter,
          kick: { tick: { leaseMs: 500, scheduleLimit: 1 } },
          workflows: { once: { run: async (_: null, step) => step.run("only", () => ++ran) } },
        },
      );
      expect(await tq.workflows.startAndWait("once", null, { timeoutMs: 20_000 })).toBe(1);
      expect(refused()).toBe(1);
      expect(ran).toBe(1);
      const page = await tq.workflows.list();
      expect(page.runs).toHaveLength(1);
    },
  );
});

describe.each(adapterCases)("startAndWait whose begin fails over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-saw-begin");

  it.each(["before", "after"] as const)(
    "begin refused %s Redis ran it: the error names the run's id, and startAndWait again with it runs the step once",
    async (when) => {
      let ran = 0;
      const { adapter } = await failingFirstCall(h.adapter, "begin", when);
      const tq = h.make(
        {},
        {
          redis: adapter,
          kick: { tick: { leaseMs: 500 } },
          workflows: { once: { run: async (_: null, step) => step.run("only", () => ++ran) } },
        },
      );
      const error = await tq.workflows.startAndWait("once", null, { timeoutMs: 20_000 }).then(
        () => undefined,
        (e: unknown) => e as Error & { code?: string },
      );
      const id = /run "([^"]+)" started/.exec(error?.message ?? "")?.[1];
      expect(id, error?.message).toBeDefined();
      expect(error?.code).toBe("REDIS");
      expect(error?.message).toContain(`{ id: "${id}" }`);
      expect(await tq.workflows.startAndWait("once", null, { id, timeoutMs: 20_000 })).toBe(1);
      expect(ran).toBe(1);
      const page = await tq.workflows.list();
      expect(page.runs.map((r) => r.id)).toEqual([id]);
    },
  );
});
