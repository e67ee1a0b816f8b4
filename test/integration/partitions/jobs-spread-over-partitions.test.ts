// With `partitions: 3` on one Redis, jobs spread over three key spaces (each
// under its own hash tag), one tick serves them all, and failures retry and
// die in the partition that holds the job, where find, retry and list reach
// them through the one jobs API.
import { expect, it } from "vitest";
import { partitionPrefixes } from "../../../src/partitions/layout.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describeOverAdapters(adapterCases, "jobs spread over partitions, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "partitions");

  it("puts jobs in every partition's queue and runs them all in one tick", async () => {
    const ran: number[] = [];
    const tq = h.make({ add: ([n]: [number]) => void ran.push(n) }, { partitions: 3 });
    expect(tq.partitions).toBe(3);
    const jids = await tq.enqueueBulk(Array.from({ length: 30 }, (_, n) => ({ name: "add" as const, args: [n] })));
    expect(new Set(jids).size).toBe(30);
    const sizes = await Promise.all(partitionPrefixes(h.prefix, 3).map((p) => h.redis.llen(`${p}queue:default`)));
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(30);
    for (const size of sizes) expect(size).toBeGreaterThan(0);
    expect(await h.redis.exists(`${h.prefix}queue:default`)).toBe(0);
    expect((await tq.stats()).queues).toEqual({ default: 30 });
    const report = await tq.tick({ budgetMs: 5_000 });
    expect(report).toMatchObject({ fetched: 30, succeeded: 30, more: false });
    expect(ran.sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, n) => n));
    const stats = await tq.stats();
    expect(stats).toMatchObject({ processed: 30, failed: 0, queues: { default: 0 } });
  });

  it("retries a failing job, then finds, lists, retries and deletes it dead across partitions", async () => {
    const tq = h.make(
      {
        boom: {
          perform: () => {
            throw new Error("boom");
          },
          retry: 0,
        },
      },
      { partitions: 3 },
    );
    const jids = await tq.enqueueBulk(Array.from({ length: 7 }, (_, n) => ({ name: "boom" as const, args: [n] })));
    const report = await tq.tick({ budgetMs: 5_000 });
    expect(report).toMatchObject({ failed: 7, dead: 7 });
    expect((await tq.stats()).dead).toBe(7);
    for (const jid of jids) expect((await tq.jobs.find(jid))?.state).toBe("dead");

    // One cursor pages through all three partitions, each job once.
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await tq.jobs.list("dead", { limit: 2, cursor });
      expect(page.jobs.length).toBeLessThanOrEqual(2);
      seen.push(...page.jobs.map((j) => j.jid));
      cursor = page.cursor;
      pages++;
    } while (cursor !== null && pages < 20);
    expect(seen.sort()).toEqual([...jids].sort());

    expect((await tq.jobs.retry(jids[0]!)).state).toBe("queued");
    expect((await tq.jobs.delete(jids[1]!)).state).toBe("dead");
    expect(await tq.jobs.find(jids[1]!)).toBeNull();
    expect(await tq.jobs.retryAll("dead")).toBe(5);
    expect((await tq.stats()).queues).toEqual({ default: 6 });
    await expect(tq.jobs.list("dead", { cursor: "9.x" })).rejects.toMatchObject({ code: "BAD_CURSOR" });
  });

  it("refuses a bulk with one bad job before any partition writes", async () => {
    const tq = h.make({ add: ([n]: [number]) => void n }, { partitions: 3 });
    const jobs = Array.from({ length: 9 }, (_, n) => ({ name: "add" as const, args: [n] as [number] }));
    await expect(tq.enqueueBulk([...jobs, { name: "nope" as "add", args: [1] }])).rejects.toMatchObject({
      code: "UNKNOWN_JOB",
    });
    await expect(tq.enqueueOrderedBulk([{ name: "missing", id: "a", payload: 1 }])).rejects.toMatchObject({
      code: "UNKNOWN_JOB",
    });
    expect((await tq.stats()).queues).toEqual({});
  });

  it("pauses and resumes a queue in every partition", async () => {
    const tq = h.make({ noop: () => {} }, { partitions: 3 });
    await tq.enqueueBulk(Array.from({ length: 6 }, () => ({ name: "noop" as const, args: [] })));
    await tq.queues.pause("default");
    expect(await tq.queues.list()).toMatchObject([{ name: "default", size: 6, paused: true }]);
    expect((await tq.tick({ budgetMs: 2_000 })).fetched).toBe(0);
    await tq.queues.resume("default");
    expect((await tq.tick({ budgetMs: 5_000 })).succeeded).toBe(6);
    expect(await tq.jobs.deleteAll("dead")).toBe(0);
  });

  it("serves a share of the partitions per tick, in rotation", async () => {
    const tq = h.make({ noop: () => {} }, { partitions: 3 });
    await tq.enqueueBulk(Array.from({ length: 30 }, () => ({ name: "noop" as const, args: [] })));
    let done = 0;
    for (let i = 0; i < 3; i++) done += (await tq.tick({ budgetMs: 5_000, partitionsPerTick: 1 })).succeeded;
    expect(done).toBe(30);
  });

  it("serves every partition over ticks of fresh processes, each serving one (a serverless invocation each)", async () => {
    await h
      .make({ noop: () => {} }, { partitions: 3 })
      .enqueueBulk(Array.from({ length: 9 }, () => ({ name: "noop" as const, args: [] })));
    let done = 0;
    // Each tick from a new tickq: its rotation starts at a drawn partition, not always at 0.
    for (let i = 0; i < 60 && done < 9; i++)
      done += (await h.make({ noop: () => {} }, { partitions: 3 }).tick({ budgetMs: 5_000, partitionsPerTick: 1 }))
        .succeeded;
    expect(done).toBe(9);
  });
});
