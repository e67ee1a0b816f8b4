import { describe, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("concurrent ticks over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "concurrency");

  it("two ticks at once never run the same job, and together run every job", async () => {
    const executions = new Map<string, number>();
    const jobs = {
      work: async (_a: unknown[], ctx: { jid: string }) => {
        executions.set(ctx.jid, (executions.get(ctx.jid) ?? 0) + 1);
        await sleep(Math.random() * 2);
      },
    };
    const jids = await h.make(jobs).enqueueBulk(Array.from({ length: 1_500 }, (_, i) => ({ name: "work", args: [i] })));
    // four ticks, each on its own connection, started together, twice over
    const connections = Array.from({ length: 4 }, () => adapterCase.open());
    try {
      const ticks = connections.map((c) => createTickq({ redis: c.adapter, prefix: h.prefix, jobs }));
      const reports = [];
      for (let round = 0; round < 2; round++) {
        reports.push(...(await Promise.all(ticks.map((tq) => tq.tick({ batch: 25, concurrency: 5 })))));
      }
      expect(reports.filter((r) => r.succeeded > 0).length).toBeGreaterThan(1);
      expect(reports.reduce((sum, r) => sum + r.succeeded, 0)).toBe(1_500);
    } finally {
      await Promise.all(connections.map((c) => c.close()));
    }
    expect(executions.size).toBe(1_500);
    expect([...executions.values()].filter((n) => n !== 1)).toEqual([]);
    expect(new Set(jids)).toEqual(new Set(executions.keys()));
  });
});
