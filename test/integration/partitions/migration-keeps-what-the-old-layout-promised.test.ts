// migratePartitions on a real 3-master cluster keeps what the old layout
// promised: a debounce window open there still merges its key's enqueues; a caller's jid remembered there (the `jids` set, and the older
// per-window `jids:WINDOW:N` sets) is remembered in the new layout for the
// rest of its window, whichever partition its job's key routes it to; an
// until-executed job moved still refuses its duplicate; a rate-limited key's
// starts in the old layout still count; a job whose concurrency key a running
// job holds in the old layout is refused from moving, naming the key. In
// either direction, and when a run is cut and run again.
import { afterEach, describe, expect, it } from "vitest";
import { createTickq, migratePartitions, type RedisAdapter } from "../../../src/index.js";
import { partitionPrefixes } from "../../../src/partitions/layout.js";
import { useClusterClients } from "../../helpers/private-cluster.js";

const QUIET = { info: () => {}, warn: () => {}, error: () => {} };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const cc = useClusterClients();

/** The jobs of both deployments, counting each run by its first arg. */
function registry(runs: Map<string, number>) {
  const count = (label: string) => void runs.set(label, (runs.get(label) ?? 0) + 1);
  return {
    step: ([label]: [string]) => count(label),
    once: { perform: ([label]: [string]) => count(label), uniqueKey: ([label]: [string]) => label },
    limited: {
      perform: ([label]: [string]) => count(label),
      rateLimit: { key: () => "api", limit: 1, periodMs: HOUR },
    },
    ping: {
      perform: ([label]: [string]) => count(label),
      debounce: { key: ([label]: [string]) => label, delayMs: HOUR, maxDelayMs: 2 * HOUR },
    },
  };
}

/** An adapter whose `at`-th script call fails once it reached Redis (its reply lost), as a cut connection would. */
function cutAt(adapter: RedisAdapter, at: number): RedisAdapter {
  let calls = 0;
  const cut = async <T>(reply: Promise<T>): Promise<T> => {
    const value = await reply;
    if (++calls === at) throw new Error("cut");
    return value;
  };
  return {
    ...adapter,
    cluster: adapter.cluster,
    evalsha: (sha, keys, args) => cut(adapter.evalsha(sha, keys, args)),
    eval: (script, keys, args) => cut(adapter.eval(script, keys, args)),
  };
}

/** Migrates, cut at each call in `cuts` in turn (each run resuming the last), then to the end. */
async function migrate(adapter: () => RedisAdapter, cuts: number[], options: Parameters<typeof migratePartitions>[0]) {
  for (const at of cuts) {
    await expect(migratePartitions({ ...options, redis: cutAt(adapter(), at) })).rejects.toThrow(/cut/);
  }
  return migratePartitions(options);
}

describe.each(cc.adapters)(
  "a migration keeps the old layout's promises, over a cluster through $name",
  ({ adapter }) => {
    afterEach(() => Promise.all(cc.client.nodes("master").map((node) => node.flushall())));

    /** The old layout's promises: jids that ran, one queued, a legacy window set, a claim, a rate log. */
    async function promise(old: ReturnType<typeof createTickq<ReturnType<typeof registry>>>, oldPrefix: string) {
      await old.enqueue("step", ["ran"], { jid: "ran" });
      await old.enqueue("once", ["once-ran"], { jid: "once-ran", unique: "until-executed" });
      await old.enqueue("limited", ["first"]);
      await old.tick({ budgetMs: 3_000 });
      await old.enqueue("step", ["queued"], { jid: "queued" });
      await old.enqueue("once", ["claimed"], { unique: "until-executed" });
      await old.enqueue("limited", ["second"]);
      // A jid remembered in the set of the shape before one `jids` set (enqueue.lua still honours it).
      const legacy = `${oldPrefix}jids:${DAY}:${Math.floor(Date.now() / DAY)}`;
      await cc.client.sadd(legacy, "legacy");
      await cc.client.pexpire(legacy, 2 * DAY);
      return old.enqueue("ping", ["doc"]);
    }

    /** Every promise checked in the new layout, all at once: duplicates refused, nothing run twice, the rate limit still full. */
    async function expectKept(
      tq: ReturnType<typeof createTickq<ReturnType<typeof registry>>>,
      runs: Map<string, number>,
      debounced: string,
    ) {
      await tq.enqueue("step", ["ran"], { jid: "ran" });
      await tq.enqueue("once", ["once-ran"], { jid: "once-ran", unique: "until-executed" });
      await tq.enqueue("step", ["queued"], { jid: "queued" });
      await tq.enqueue("step", ["legacy"], { jid: "legacy" });
      const held = (await tq.jobs.list("scheduled")).jobs.find((j) => j.name === "once")?.jid;
      const duplicate = await tq.enqueue("once", ["claimed"], { unique: "until-executed" });
      const merged = await tq.enqueue("ping", ["doc"]);
      for (let i = 0; i < 3; i++) await tq.tick({ budgetMs: 3_000 });
      expect({
        duplicateRefused: held !== undefined && duplicate === held,
        // The debounce window open in the old layout takes the new enqueue: one job of the key waits.
        debounceMerged: merged === debounced,
        waiting: (await tq.jobs.list("scheduled")).jobs.filter((j) => j.name === "ping").length,
        runs: Object.fromEntries(runs),
        // The rate limit's one start an hour went to `first`, in the old layout: `second` waits.
        deferred: (await tq.stats()).flow.limited?.deferred,
      }).toEqual({
        duplicateRefused: true,
        debounceMerged: true,
        waiting: 1,
        runs: { ran: 1, "once-ran": 1, first: 1, queued: 1, claimed: 1 },
        deferred: 1,
      });
    }

    it("from one slot ({tq}:) into three partitions, cut twice and resumed", async () => {
      const runs = new Map<string, number>();
      const jobs = registry(runs);
      const old = createTickq({ redis: adapter(), prefix: "{tq}:", jobs, logger: QUIET });
      const debounced = await promise(old, "{tq}:");
      const report = await migrate(adapter, [6, 12], {
        redis: adapter(),
        prefix: "tq:",
        from: "{tq}:",
        partitions: 3,
        logger: QUIET,
      });
      expect(report).toMatchObject({ partitions: 3, left: [] });
      await expectKept(
        createTickq({ redis: adapter(), prefix: "tq:", partitions: 3, jobs, logger: QUIET }),
        runs,
        debounced,
      );
    }, 60_000);

    it("from three partitions back into one slot, cut twice and resumed", async () => {
      const runs = new Map<string, number>();
      const jobs = registry(runs);
      const old = createTickq({ redis: adapter(), prefix: "tq:", partitions: 3, jobs, logger: QUIET });
      const debounced = await promise(old, partitionPrefixes("tq:", 3)[1]!);
      const report = await migrate(adapter, [5, 11], {
        redis: adapter(),
        prefix: "tq:",
        to: "{tq}:",
        partitions: 1,
        logger: QUIET,
      });
      expect(report).toMatchObject({ partitions: 1, left: [] });
      await expectKept(createTickq({ redis: adapter(), prefix: "{tq}:", jobs, logger: QUIET }), runs, debounced);
    }, 60_000);

    it("refuses to move a job whose concurrency key a running job holds in the old layout, then moves it once that job ended", async () => {
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let started = () => {};
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      const ran: string[] = [];
      const jobs = {
        sync: {
          perform: async ([label]: [string]) => {
            ran.push(label);
            if (label === "long") {
              started();
              await released;
            }
          },
          concurrency: { key: () => "acct", limit: 1 },
        },
      };
      const old = createTickq({ redis: adapter(), prefix: "{tq}:", jobs, logger: QUIET });
      await old.enqueue("sync", ["long"]);
      const ticking = old.tick({ budgetMs: 20_000 });
      await running;
      await old.enqueue("sync", ["later"], { delayMs: HOUR });
      const options = { redis: adapter(), prefix: "tq:", from: "{tq}:", partitions: 3, leave: true, logger: QUIET };
      try {
        await expect(migratePartitions(options)).rejects.toMatchObject({
          code: "BAD_OPTIONS",
          message: expect.stringMatching(/1 jobs were not moved.*concurrency key.*acct.*run the migration again/s),
        });
        expect(await old.stats()).toMatchObject({ scheduled: 1 });
      } finally {
        release();
        await ticking;
      }
      expect(await migratePartitions(options)).toMatchObject({ partitions: 3, moved: { scheduled: 1 }, left: [] });
      const tq = createTickq({ redis: adapter(), prefix: "tq:", partitions: 3, jobs, logger: QUIET });
      expect(await tq.stats()).toMatchObject({ scheduled: 1 });
      expect(ran).toEqual(["long"]);
    }, 60_000);
  },
);
