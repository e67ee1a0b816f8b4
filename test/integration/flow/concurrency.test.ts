// Per-key concurrency in one process: while-executing keeps one run per key,
// concurrency.limit N keeps N; a job whose key is full is parked, not lost,
// and other keys and other queues run meanwhile.
import { describe, expect, it } from "vitest";
import { createTickq, type JobContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

/** Counts live runs per key; remembers the most ever seen at once. */
function overlapDetector() {
  const live = new Map<string, number>();
  const most = new Map<string, number>();
  const runs: string[] = [];
  return {
    most,
    runs,
    async around(key: string, ms: number) {
      const n = (live.get(key) ?? 0) + 1;
      live.set(key, n);
      most.set(key, Math.max(most.get(key) ?? 0, n));
      runs.push(key);
      await sleep(ms);
      live.set(key, live.get(key)! - 1);
    },
  };
}

describe.each(adapterCases)("per-key concurrency over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-conc");

  it("while-executing: two ticks at once never run one key twice at once, and every job runs", async () => {
    const d = overlapDetector();
    const fences: number[] = [];
    const jobs = {
      sync: {
        perform: async ([id]: [string, number], ctx: JobContext) => {
          fences.push(ctx.fence!);
          await d.around(id, 5 + Math.random() * 10);
        },
        uniqueKey: ([id]: [string, number]) => `acct:${id}`,
      },
    };
    const tq = h.make(jobs);
    await tq.enqueueBulk(
      Array.from({ length: 60 }, (_, i) => ({
        name: "sync" as const,
        args: [`k${i % 4}`, i] as [string, number],
        unique: "while-executing" as const,
      })),
    );
    const connections = Array.from({ length: 2 }, () => adapterCase.open());
    try {
      const ticks = connections.map((c) => createTickq({ redis: c.adapter, prefix: h.prefix, jobs }));
      for (let round = 0; round < 40 && d.runs.length < 60; round++) {
        await Promise.all(ticks.map((t) => t.tick({ batch: 10, concurrency: 10, budgetMs: 2_000 })));
      }
    } finally {
      await Promise.all(connections.map((c) => c.close()));
    }
    expect(d.runs).toHaveLength(60);
    expect([...d.most.values()]).toEqual([1, 1, 1, 1]);
    expect(new Set(fences).size).toBe(60); // a fence per run
    const stats = await tq.stats();
    expect(stats.flow.sync).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
    expect(await h.redis.keys(`${h.prefix}flow:held:*`)).toEqual([]);
    expect(await h.redis.keys(`${h.prefix}flow:owner:*`)).toEqual([]);
    expect(await h.redis.keys(`${h.prefix}flow:park:*`)).toEqual([]);
  });

  it("concurrency limit 3 over 4 keys' worth of jobs: never 4 at once on a key; parked jobs all run", async () => {
    const d = overlapDetector();
    const jobs = {
      call: {
        perform: async ([partner]: [string, number]) => d.around(partner, 20),
        concurrency: { key: ([partner]: [string, number]) => partner, limit: 3 },
      },
    };
    const tq = h.make(jobs);
    await tq.enqueueBulk(
      Array.from({ length: 30 }, (_, i) => ({
        name: "call" as const,
        args: [i % 2 ? "a" : "b", i] as [string, number],
      })),
    );
    for (let round = 0; round < 20 && d.runs.length < 30; round++)
      await tq.tick({ batch: 20, concurrency: 20, budgetMs: 2_000 });
    expect(d.runs).toHaveLength(30);
    expect(d.most.get("a")).toBe(3);
    expect(d.most.get("b")).toBe(3);
    expect((await tq.stats()).flow.call).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
  });

  it("more duplicates of a busy key than one fetch sets aside: one tick reads on past them all and runs the plain jobs behind", async () => {
    let plain = 0;
    const tq = h.make({ dup: { perform: () => {}, uniqueKey: () => "busy" }, quick: () => void plain++ });
    await tq.enqueueBulk(
      Array.from({ length: 2_500 }, () => ({
        name: "dup" as const,
        args: [] as never,
        unique: "while-executing" as const,
      })),
    );
    await tq.enqueueBulk(Array.from({ length: 10 }, () => ({ name: "quick" as const, args: [] as never })));
    // another, live, tick holds the key
    await h.redis.set(`${h.prefix}tick:other`, "1", "PX", 60_000);
    await h.redis.set(`${h.prefix}flow:owner:u:busy`, "other");
    const report = await tq.tick({ batch: 50, budgetMs: 5_000 });
    expect(plain).toBe(10);
    expect(report.succeeded).toBe(10);
    expect((await tq.stats()).flow.dup!.waiting).toBe(2_500);
  });

  it("a head of jobs for a busy key does not hold back plain jobs behind it or in a later queue", async () => {
    let busyRuns = 0;
    let live = 0;
    let mostLive = 0;
    const plain: number[] = [];
    const jobs = {
      slow: {
        perform: async () => {
          busyRuns++;
          mostLive = Math.max(mostLive, ++live);
          await sleep(200);
          live--;
        },
        queue: "critical",
        uniqueKey: () => "one",
      },
      quick: { perform: async ([i]: [number]) => void plain.push(i) },
    };
    const tq = h.make(jobs, { queues: ["critical", "default"] });
    await tq.enqueueBulk(
      Array.from({ length: 20 }, () => ({
        name: "slow" as const,
        args: [] as never,
        unique: "while-executing" as const,
      })),
    );
    await tq.enqueueBulk(Array.from({ length: 30 }, (_, i) => ({ name: "quick" as const, args: [i] as never })));
    await tq.enqueueBulk(
      Array.from({ length: 30 }, (_, i) => ({ name: "quick" as const, args: [30 + i] as never, queue: "critical" })),
    );
    const report = await tq.tick({ batch: 10, concurrency: 10, budgetMs: 1_000 });
    expect(plain).toHaveLength(60); // all ran while the key was busy
    expect(busyRuns).toBeGreaterThanOrEqual(1);
    expect(busyRuns).toBeLessThan(20);
    expect(report.succeeded).toBe(60 + busyRuns);
    const stats = await tq.stats();
    // parked, but for those put back or sent back to the head of the queue
    expect(stats.flow.slow!.waiting + stats.queues.critical!).toBe(20 - busyRuns);
    // the key ran until the deadline: a run it interrupted goes back first, the next sent on behind it
    expect(stats.queues.critical).toBeLessThanOrEqual(2);
    // the rest drain one at a time
    for (let round = 0; round < 40 && busyRuns < 20; round++)
      await tq.tick({ batch: 10, concurrency: 10, budgetMs: 3_000 });
    expect(busyRuns).toBe(20);
    expect(mostLive).toBe(1);
    expect((await tq.stats()).flow.slow).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
  });
});
