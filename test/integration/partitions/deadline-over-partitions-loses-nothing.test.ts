// Ticks over partitions that stop at their deadline with jobs held and
// running in every partition: each job's handler completes once, no job is
// left in a tick's inproc list, and two such ticks at once (one serving two
// of the three partitions) never run more handlers than their concurrencies
// together.
import { expect, it } from "vitest";
import { adapterCase, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describeOverAdapters([adapterCase("ioredis")], "deadlines over partitions, over $name", (c) => {
  const h = useHarness(c, "part-deadline");

  it("complete every job once and leave nothing in inproc", async () => {
    const done = new Map<string, number>();
    let running = 0;
    let most = 0;
    const tq = h.make(
      {
        work: async ([ms]: [number], ctx) => {
          most = Math.max(most, ++running);
          await sleep(ms);
          running--;
          if (ctx.signal.aborted) throw new Error("aborted");
          done.set(ctx.jid, (done.get(ctx.jid) ?? 0) + 1);
        },
      },
      { partitions: 3 },
    );
    const jids = await tq.enqueueBulk(
      Array.from({ length: 90 }, (_, i) => ({ name: "work" as const, args: [[10, 60, 200][i % 3]!] as [number] })),
    );
    for (let ticks = 0; ticks < 40 && done.size < 90; ticks++) {
      await Promise.all([
        tq.tick({ budgetMs: 500, concurrency: 3, batch: 5, graceMs: 300 }),
        tq.tick({ budgetMs: 700, concurrency: 2, batch: 3, graceMs: 300, partitionsPerTick: 2 }),
      ]);
      expect(await h.redis.keys(`${h.prefix}*inproc*`)).toEqual([]);
    }
    expect(jids.filter((jid) => done.get(jid) !== 1)).toEqual([]);
    expect(most).toBeLessThanOrEqual(5);
  }, 60_000);
});
