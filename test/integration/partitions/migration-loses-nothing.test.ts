// migratePartitions moves every queued, scheduled, retry and dead job of a
// one-partition layout into N partitions, byte for byte and queued ones in
// their order; a migration stopped half-way and run again moves the rest and
// doubles nothing; the partitioned deployment then starts and runs them all.
import { expect, it } from "vitest";
import { migratePartitions } from "../../../src/index.js";
import { partitionOf } from "../../../src/partitions/layout.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describeOverAdapters(adapterCases, "migration to partitions, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "part-migrate");
  const QUIET = { info: () => {}, warn: () => {}, error: () => {} };

  it("moves every waiting job once, keeps queued order, and the partitioned deployment runs them", async () => {
    const ran: string[] = [];
    const jobs = {
      step: ([label]: [string]) => void ran.push(label),
      boom: { retry: 0, perform: () => Promise.reject(new Error("boom")) },
      flaky: { retry: 3, perform: () => Promise.reject(new Error("again")) },
    };
    const old = h.make(jobs);
    await old.enqueue("boom", []);
    await old.enqueue("flaky", []);
    await old.tick({ budgetMs: 2_000 });
    const queued = Array.from({ length: 12 }, (_, n) => `q${String(n).padStart(2, "0")}`);
    const queuedJids = await old.enqueueBulk(queued.map((label) => ({ name: "step" as const, args: [label] })));
    await old.enqueue("step", ["high"], { priority: 5 });
    const later = await old.enqueue("step", ["later"], { delayMs: 3_600_000 });
    const rawLater = (await old.jobs.find(later))!.raw;
    const before = await old.stats();
    expect(before).toMatchObject({ dead: 1, retry: 1, scheduled: 1, queues: { default: 13 } });

    // Pages of 4: every state takes several, and jobs moved leave the pages that follow.
    const report = await migratePartitions({
      redis: h.adapter,
      prefix: h.prefix,
      partitions: 3,
      batch: 4,
      logger: QUIET,
    });
    expect(report).toEqual({
      partitions: 3,
      fromPartitions: 1,
      moved: { dead: 1, retry: 1, scheduled: 1, queued: 13, orderedDead: 0 },
      stayed: 0,
      left: [],
    });
    expect(await old.stats()).toMatchObject({ dead: 0, retry: 0, scheduled: 0, queues: { default: 0 } });
    const again = await migratePartitions({ redis: h.adapter, prefix: h.prefix, partitions: 3, logger: QUIET });
    expect(again).toEqual({
      partitions: 3,
      fromPartitions: 1,
      moved: { dead: 0, retry: 0, scheduled: 0, queued: 0, orderedDead: 0 },
      stayed: 0,
      left: [],
    });

    const tq = h.make(jobs, { partitions: 3 });
    const moved = await tq.stats();
    expect(moved).toMatchObject({ dead: 1, retry: 1, scheduled: 14 });
    expect((await tq.jobs.find(later))?.raw).toBe(rawLater);
    for (let i = 0; i < 5 && ran.length < 13; i++) await tq.tick({ budgetMs: 3_000 });
    expect([...ran].sort()).toEqual([...queued, "high"].sort());
    // Within a partition, queued jobs keep their old order.
    for (let k = 0; k < 3; k++) {
      const mine = queued.filter((_, n) => partitionOf(queuedJids[n]!, 3) === k);
      expect(ran.filter((label) => mine.includes(label))).toEqual(mine);
    }
    expect(await tq.stats()).toMatchObject({ dead: 1, retry: 1, scheduled: 1 });
  });

  it("a migration cut between adopting a job and deleting it at the source doubles nothing when run again", async () => {
    const old = h.make({ step: () => {} });
    const jids = await old.enqueueBulk(Array.from({ length: 5 }, (_, n) => ({ name: "step" as const, args: [n] })));
    // Cut: the adopt reaches Redis, the delete at the source never does.
    let adopts = 0;
    const cutting = {
      ...h.adapter,
      cluster: h.adapter.cluster,
      evalsha: async (sha: string, keys: string[], args: string[]) => {
        const reply = await h.adapter.evalsha(sha, keys, args);
        if (keys.some((k) => k.includes("}:adopted:")) && ++adopts === 3) throw new Error("connection lost");
        return reply;
      },
      eval: async (script: string, keys: string[], args: string[]) => {
        const reply = await h.adapter.eval(script, keys, args);
        if (keys.some((k) => k.includes("}:adopted:")) && ++adopts === 3) throw new Error("connection lost");
        return reply;
      },
    };
    await expect(migratePartitions({ redis: cutting, prefix: h.prefix, partitions: 3, logger: QUIET })).rejects.toThrow(
      /connection lost/,
    );
    const report = await migratePartitions({ redis: h.adapter, prefix: h.prefix, partitions: 3, logger: QUIET });
    expect(report.moved.queued).toBe(3);
    const tq = h.make({ step: () => {} }, { partitions: 3 });
    expect((await tq.stats()).scheduled).toBe(5);
    for (const jid of jids) expect((await tq.jobs.find(jid))?.state).toBe("scheduled");
    expect((await tq.tick({ budgetMs: 3_000 })).succeeded).toBe(5);
  });
});
