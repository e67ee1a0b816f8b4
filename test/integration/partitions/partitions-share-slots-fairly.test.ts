// A tick's partitions draw on one pool of slots (src/tick/slots.ts). While
// several have work, each fetches no more than its part of the pool, leaves
// the room the partitions that started fewer jobs lack, and a slot freed
// wakes the others at once: else the partition whose job just finished,
// always first to fetch, takes every freed slot, and a partition whose
// fetched jobs went back to its queue behind busy slots runs nothing until
// the first one runs dry.
import { expect, it } from "vitest";
import { adapterCase, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { jidsIn } from "../../helpers/partition-jids.js";
import { sleep } from "../../helpers/redis.js";

describeOverAdapters([adapterCase("ioredis")], "partitions share a tick's slots fairly, over $name", (c) => {
  const h = useHarness(c, "part-fair");

  it("two partitions with deep queues of long jobs take turns", async () => {
    const order: number[] = [];
    const runs: { from: number; to: number }[] = [];
    const tq = h.make(
      {
        long: async ([k]: [number]) => {
          const from = performance.now();
          await sleep(300);
          runs.push({ from, to: performance.now() });
          order.push(k);
        },
      },
      { partitions: 3 },
    );
    for (const k of [0, 1]) {
      const jids = jidsIn(k, 3, 8, `${h.prefix}${k}`);
      await tq.enqueueBulk(jids.map((jid) => ({ name: "long" as const, args: [k] as [number], jid })));
    }
    // The first fetches hold 2 jobs each for 2 slots: one partition's go back to its queue.
    const report = await tq.tick({ budgetMs: 20_000, concurrency: 2, batch: 2 });
    expect(report.succeeded).toBe(16);
    // Not 8 of one partition, then 8 of the other.
    const firstHalf = order.slice(0, 8);
    expect(firstHalf.filter((k) => k === 0).length).toBeGreaterThanOrEqual(3);
    expect(firstHalf.filter((k) => k === 1).length).toBeGreaterThanOrEqual(3);
    // A freed slot is filled within a fetch's round trip, not at the other partition's next poll (100 ms).
    const gaps = runs
      .map((r) => r.from)
      .sort((a, b) => a - b)
      .slice(2)
      .map((from) => from - Math.max(...runs.map((r) => r.to).filter((to) => to <= from)));
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    expect(mean).toBeLessThan(20);
  }, 30_000);

  it("at concurrency 1, the partition whose job just finished lets the other fetch", async () => {
    const order: number[] = [];
    const tq = h.make(
      {
        long: async ([k]: [number]) => {
          await sleep(300);
          order.push(k);
        },
      },
      { partitions: 3 },
    );
    for (const k of [0, 1]) {
      const jids = jidsIn(k, 3, 8, `${h.prefix}${k}`);
      await tq.enqueueBulk(jids.map((jid) => ({ name: "long" as const, args: [k] as [number], jid })));
    }
    const report = await tq.tick({ budgetMs: 20_000, concurrency: 1, batch: 2 });
    expect(report.succeeded).toBe(16);
    const firstHalf = order.slice(0, 8);
    expect(firstHalf.filter((k) => k === 0).length).toBeGreaterThanOrEqual(3);
    expect(firstHalf.filter((k) => k === 1).length).toBeGreaterThanOrEqual(3);
  }, 30_000);

  it("three partitions with deep queues of short jobs each get a fair part", async () => {
    const done = [0, 0, 0];
    const tq = h.make({ work: async ([k]: [number]) => void (await sleep(20), done[k]!++) }, { partitions: 3 });
    for (const k of [0, 1, 2]) {
      const jids = jidsIn(k, 3, 300, `${h.prefix}${k}`);
      await tq.enqueueBulk(jids.map((jid) => ({ name: "work" as const, args: [k] as [number], jid })));
    }
    await tq.tick({ budgetMs: 2_500, concurrency: 2, batch: 2 });
    expect(Math.min(...done)).toBeGreaterThanOrEqual(0.6 * Math.max(...done));
  }, 20_000);
});
