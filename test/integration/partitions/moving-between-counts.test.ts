// migratePartitions from N partitions to M: every queued, scheduled, retry
// and dead job ends up exactly once in the new layout, in the partition its
// flow key (or jid) routes it to, none in the old; queued jobs keep their
// order within each source partition; a move cut anywhere and run again
// finishes it; meanwhile a tickq with the old count or the new one is
// refused, naming the fix, and the new count is stored only at the end.
import { expect, it } from "vitest";
import { createTickq, migratePartitions, TickqError } from "../../../src/index.js";
import type { RedisAdapter } from "../../../src/index.js";
import { partitionOf, partitionPrefixes } from "../../../src/partitions/layout.js";
import { routeKeyOf } from "../../../src/partitions/route.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { cutBeforeFinish } from "../../helpers/migration-cuts.js";

const QUIET = { info: () => {}, warn: () => {}, error: () => {} };
const STATES = ["queued", "scheduled", "retry", "dead", "running"] as const;

function registry(ran: string[]) {
  return {
    step: ([label]: [string]) => void ran.push(label),
    boom: { retry: 0, perform: () => Promise.reject(new Error("boom")) },
    flaky: { retry: 3, perform: () => Promise.reject(new Error("again")) },
    synced: {
      perform: ([label]: [string, string]) => void ran.push(label),
      concurrency: { key: ([, account]: [string, string]) => account, limit: 1 },
    },
  };
}

// The cut test runs the migration again and again, each run cut one call further (20 runs at least):
// 3.8 s over ioredis, but each call an HTTP request over upstash and rest, where it went past vitest's
// 30 s beside `npm run chaos` on a slow host. Its own bound, as the CLI's tests have theirs.
const CUT_RUNS_MS = 120_000;

describeOverAdapters(adapterCases, "moving between partition counts, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "part-remigrate");

  /** Where each jid is in a layout: the prefix of every partition it is found in, each time it is found. */
  async function inventory(count: number): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    for (const prefix of partitionPrefixes(h.prefix, count)) {
      const one = createTickq({ redis: h.adapter, prefix, jobs: {}, logger: QUIET });
      for (const state of STATES) {
        let cursor: string | null = null;
        do {
          const page = await one.jobs.list(state, { limit: 100, cursor });
          for (const job of page.jobs) found.set(job.jid, [...(found.get(job.jid) ?? []), prefix]);
          cursor = page.cursor;
        } while (cursor);
      }
    }
    return found;
  }

  /** A deployment in `count` partitions with jobs in every state; the labels of its queued jobs, in enqueue order. */
  async function seed(count: number) {
    const ran: string[] = [];
    const tq = h.make(registry(ran), { partitions: count });
    await tq.enqueueBulk(Array.from({ length: 4 }, (_, n) => ({ name: "boom" as const, args: [n] })));
    await tq.enqueueBulk(Array.from({ length: 3 }, (_, n) => ({ name: "flaky" as const, args: [n] })));
    for (let i = 0; i < 3 && ran.length === 0 && (await tq.stats()).dead < 4; i++) await tq.tick({ budgetMs: 2_000 });
    const labels = Array.from({ length: 30 }, (_, n) => `q${String(n).padStart(2, "0")}`);
    await tq.enqueueBulk(labels.map((label) => ({ name: "step" as const, args: [label] })));
    const synced = ["s0", "s1", "s2", "s3"];
    await tq.enqueueBulk(synced.map((label, n) => ({ name: "synced" as const, args: [label, `acct${n}`] })));
    await tq.enqueueBulk(
      Array.from({ length: 5 }, (_, n) => ({ name: "step" as const, args: [`later${n}`], delayMs: 3_600_000 })),
    );
    await tq.enqueue("step", ["later-one"], { delayMs: 3_600_000 });
    const before = await tq.stats();
    expect(before).toMatchObject({ dead: 4, retry: 3, queues: { default: 34 } });
    const jids = await inventory(count);
    return { jids, labels: [...labels, ...synced] };
  }

  /** Every jid once in the new layout, in the partition its route key names; nothing in the old partitions. */
  async function expectMovedOnce(jids: Map<string, string[]>, from: number, to: number) {
    const now = await inventory(to);
    const targets = partitionPrefixes(h.prefix, to);
    const jobs = registry([]);
    for (const jid of jids.keys()) {
      expect(now.get(jid), jid).toHaveLength(1);
      const job = (await createTickq({
        redis: h.adapter,
        prefix: now.get(jid)![0]!,
        jobs: {},
        logger: QUIET,
      }).jobs.find(jid))!;
      const key = routeKeyOf(jobs, { name: job.name, args: job.job.args as unknown[], jid });
      expect(now.get(jid)![0], `${job.name} ${jid}`).toBe(targets[partitionOf(key ?? jid, to)]);
    }
    expect(now.size).toBe(jids.size);
    const old = partitionPrefixes(h.prefix, from).filter((p) => !targets.includes(p));
    for (const prefix of old) {
      const stats = await createTickq({ redis: h.adapter, prefix, jobs: {}, logger: QUIET }).stats();
      expect(stats, prefix).toMatchObject({ scheduled: 0, retry: 0, dead: 0, inflight: 0 });
      expect(
        Object.values(stats.queues).every((n) => n === 0),
        prefix,
      ).toBe(true);
    }
  }

  /**
   * Starts the new deployment, runs every queued job, and checks each ran once, and that jobs of one
   * old partition that went to one new partition ran in their old order.
   */
  async function expectRunsInOrder(to: number, labels: string[], sourceOf: Map<string, string>) {
    const targetOf = await labelPartitions(to, ["queued", "scheduled"]);
    const ran: string[] = [];
    const tq = h.make(registry(ran), { partitions: to });
    for (let i = 0; i < 8 && ran.length < labels.length; i++) await tq.tick({ budgetMs: 3_000 });
    expect([...ran].sort()).toEqual([...labels].sort());
    const pairs = new Set(labels.map((label) => `${sourceOf.get(label)} ${targetOf.get(label)}`));
    expect(pairs.size).toBeGreaterThan(1);
    for (const pair of pairs) {
      const mine = labels.filter((label) => `${sourceOf.get(label)} ${targetOf.get(label)}` === pair);
      expect(
        ran.filter((label) => mine.includes(label)),
        pair,
      ).toEqual(mine);
    }
  }

  /** The partition of each job's label (its first arg) in a layout, for the states given. */
  async function labelPartitions(count: number, states: readonly ("queued" | "scheduled")[]) {
    const partitionOfLabel = new Map<string, string>();
    for (const prefix of partitionPrefixes(h.prefix, count)) {
      const one = createTickq({ redis: h.adapter, prefix, jobs: {}, logger: QUIET });
      for (const state of states) {
        const page = await one.jobs.list(state, { limit: 1_000 });
        for (const job of page.jobs) partitionOfLabel.set(String((job.job.args as unknown[])[0]), prefix);
      }
    }
    return partitionOfLabel;
  }

  async function labelSources(count: number, labels: string[]): Promise<Map<string, string>> {
    const sourceOf = await labelPartitions(count, ["queued"]);
    expect(sourceOf.size).toBe(labels.length);
    return sourceOf;
  }

  it("3 → 5: moves every job once to its partition, stores 5 at the end, and the new deployment runs them in order", async () => {
    const { jids, labels } = await seed(3);
    const sourceOf = await labelSources(3, labels);
    const report = await migratePartitions({
      redis: h.adapter,
      prefix: h.prefix,
      partitions: 5,
      jobs: registry([]),
      batch: 4,
      logger: QUIET,
    });
    expect(report).toEqual({
      partitions: 5,
      fromPartitions: 3,
      moved: { dead: 4, retry: 3, scheduled: 6, queued: 34, orderedDead: 0 },
      stayed: 0,
      left: [],
    });
    expect(await h.redis.get(`${h.prefix}partitions`)).toBe("5");
    await expectMovedOnce(jids, 3, 5);
    await expect(h.make({}, { partitions: 3 }).stats()).rejects.toThrow(
      /partitions: 3, but .* laid out in 5 partitions/,
    );
    await expectRunsInOrder(5, labels, sourceOf);
  });

  it("5 → 2, then 2 → 3, where two partitions keep their hash tag and their jobs stay in place", async () => {
    const { jids, labels } = await seed(5);
    const sourceOf = await labelSources(5, labels);
    const first = await migratePartitions({
      redis: h.adapter,
      prefix: h.prefix,
      partitions: 2,
      jobs: registry([]),
      logger: QUIET,
    });
    expect(first).toMatchObject({ partitions: 2, fromPartitions: 5, stayed: 0, left: [] });
    await expectMovedOnce(jids, 5, 2);
    // Partitions 0 and 1 of 2 and of 3 share their tags (layout.ts): their jobs routed there stay.
    expect(partitionPrefixes(h.prefix, 3).slice(0, 2)).toEqual(partitionPrefixes(h.prefix, 2));
    const second = await migratePartitions({
      redis: h.adapter,
      prefix: h.prefix,
      partitions: 3,
      jobs: registry([]),
      logger: QUIET,
    });
    const { dead, retry, scheduled, queued } = second.moved;
    expect(second.stayed).toBeGreaterThan(0);
    expect(dead + retry + scheduled + queued + second.stayed).toBe(jids.size);
    expect(second.left).toEqual([]);
    await expectMovedOnce(jids, 2, 3);
    await expectRunsInOrder(3, labels, sourceOf);
  });

  it("a move cut after any write and run again doubles nothing and loses nothing; meantime both counts are refused", {
    timeout: CUT_RUNS_MS,
  }, async () => {
    const { jids, labels } = await seed(3);
    // Cut after 2 calls (a read of the check that nothing would be stranded), then one call later each run,
    // until a run gets through: the cuts land on every kind of call, reads, the mark, adopts and deletes.
    let cuts = 0;
    let marked = false;
    for (let after = 2; ; after++) {
      const run = await migratePartitions({
        redis: cutAfter(h.adapter, after),
        prefix: h.prefix,
        partitions: 5,
        jobs: registry([]),
        batch: 3,
        logger: QUIET,
      }).catch((e: unknown) => e);
      if (!(run instanceof Error)) break;
      expect(run.message).toMatch(/cut after/);
      cuts++;
      // A cut that lost the reply of the last call, storing 5, leaves nothing to finish.
      if ((await h.redis.get(`${h.prefix}partitions`)) === "5") continue;
      // A cut before the mark moved nothing; once marked, a cut leaves the mark.
      if (!marked && (await h.redis.get(`${h.prefix}partitions`)) === "3") {
        expect(await inventory(3)).toEqual(jids);
        continue;
      }
      marked = true;
      expect(await h.redis.get(`${h.prefix}partitions`)).toMatch(/^3>5 /);
      for (const count of [3, 5]) {
        const error = await h
          .make({}, { partitions: count })
          .enqueue("x" as never, [] as never)
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(TickqError);
        expect((error as TickqError).code).toBe("BAD_OPTIONS");
        expect((error as Error).message).toMatch(
          new RegExp(
            `partitions: ${count}, but .* being moved from 3 to 5 partitions.*tickq partitions migrate --partitions 5`,
          ),
        );
      }
      // Another target than the one under way is refused too.
      await expect(
        migratePartitions({ redis: h.adapter, prefix: h.prefix, partitions: 4, logger: QUIET }),
      ).rejects.toThrow(/a migration from 3 to 5 partitions is under way.*--partitions 5/);
    }
    expect(cuts).toBeGreaterThanOrEqual(20);
    expect(await h.redis.get(`${h.prefix}partitions`)).toBe("5");
    await expectMovedOnce(jids, 3, 5);
    const ran: string[] = [];
    const tq = h.make(registry(ran), { partitions: 5 });
    for (let i = 0; i < 8 && ran.length < labels.length; i++) await tq.tick({ budgetMs: 3_000 });
    expect([...ran].sort()).toEqual([...labels].sort());
  });

  it("cut between the last move and storing the count: the mark stays, tickqs are refused, a run again stores it", async () => {
    const { jids } = await seed(3);
    const noFinish = cutBeforeFinish(h.adapter);
    await expect(
      migratePartitions({ redis: noFinish, prefix: h.prefix, partitions: 5, jobs: registry([]), logger: QUIET }),
    ).rejects.toThrow(/cut before finish/);
    await expectMovedOnce(jids, 3, 5);
    await expect(h.make({}, { partitions: 5 }).stats()).rejects.toThrow(/being moved from 3 to 5 partitions/);
    await expect(h.make({}, { partitions: 3 }).stats()).rejects.toThrow(/being moved from 3 to 5 partitions/);
    const again = await migratePartitions({
      redis: h.adapter,
      prefix: h.prefix,
      partitions: 5,
      jobs: registry([]),
      logger: QUIET,
    });
    expect(again).toEqual({
      partitions: 5,
      fromPartitions: 3,
      moved: { dead: 0, retry: 0, scheduled: 0, queued: 0, orderedDead: 0 },
      stayed: 0,
      left: [],
    });
    expect((await h.make({}, { partitions: 5 }).stats()).dead).toBe(4);
  });

  it("refuses a count to move from other than the stored one, or equal to the target, naming them", async () => {
    await seed(3);
    await expect(
      migratePartitions({ redis: h.adapter, prefix: h.prefix, partitions: 5, fromPartitions: 4, logger: QUIET }),
    ).rejects.toThrow(/fromPartitions: 4, but .* laid out in 3 partitions.*fromPartitions: 3/);
    await expect(
      migratePartitions({ redis: h.adapter, prefix: h.prefix, partitions: 3, fromPartitions: 3, logger: QUIET }),
    ).rejects.toThrow(/both 3: nothing to move/);
    // The count stored already: a sweep of the one-partition layout under the prefix (a 1 → N move run again).
    expect(await migratePartitions({ redis: h.adapter, prefix: h.prefix, partitions: 3, logger: QUIET })).toEqual({
      partitions: 3,
      fromPartitions: 1,
      moved: { dead: 0, retry: 0, scheduled: 0, queued: 0, orderedDead: 0 },
      stayed: 0,
      left: [],
    });
    expect(await h.redis.get(`${h.prefix}partitions`)).toBe("3");
  });

  it("2 → 1: back to one partition under the prefix, where a one-partition tickq runs them", async () => {
    const { jids, labels } = await seed(2);
    const report = await migratePartitions({ redis: h.adapter, prefix: h.prefix, partitions: 1, logger: QUIET });
    expect(report).toMatchObject({ partitions: 1, fromPartitions: 2, stayed: 0, left: [] });
    expect(await h.redis.get(`${h.prefix}partitions`)).toBe("1");
    await expect(h.make({}, { partitions: 2 }).stats()).rejects.toThrow(/laid out in 1 partitions/);
    const ran: string[] = [];
    const one = h.make(registry(ran));
    expect(await one.stats()).toMatchObject({ dead: 4, retry: 3, scheduled: 6 + 34 });
    for (const jid of jids.keys()) expect(await one.jobs.find(jid), jid).not.toBeNull();
    for (let i = 0; i < 8 && ran.length < labels.length; i++) await one.tick({ budgetMs: 3_000 });
    expect([...ran].sort()).toEqual([...labels].sort());
  });
});

/** An adapter whose `after`-th call reaches Redis and whose reply is lost: a move cut right after a write. */
function cutAfter(adapter: RedisAdapter, after: number): RedisAdapter {
  let calls = 0;
  const cut = async <T>(reply: Promise<T>): Promise<T> => {
    const value = await reply;
    if (++calls === after) throw new Error(`cut after ${after} calls`);
    return value;
  };
  return {
    ...adapter,
    cluster: adapter.cluster,
    evalsha: (sha, keys, args) => cut(adapter.evalsha(sha, keys, args)),
    eval: (script, keys, args) => cut(adapter.eval(script, keys, args)),
  };
}
