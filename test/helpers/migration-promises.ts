// What a layout promises that a migration (migratePartitions) must keep, set
// up in the old layout and checked in the new one: jids that ran or wait
// (and one in a set of the shape before one `jids` set), an until-executed
// claim, a rate limit's start, a debounce window. Used over one Redis and
// over a real cluster.
import { expect } from "vitest";
import { type createTickq, migratePartitions, type RedisAdapter } from "../../src/index.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The jobs of both deployments, counting each run by its first arg. */
export function promisingJobs(runs: Map<string, number>) {
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

type Promising = ReturnType<typeof createTickq<ReturnType<typeof promisingJobs>>>;

/** Commands a test's direct client offers for the set of the older shape. */
interface LegacyWriter {
  sadd(key: string, member: string): Promise<unknown>;
  pexpire(key: string, ms: number): Promise<unknown>;
}

/**
 * The old layout's promises; `legacyPrefix`: a partition of it to hold a jid in a set of the shape
 * before one `jids` set (enqueue.lua still honours it). Returns the debounced job's jid.
 */
export async function makePromises(old: Promising, redis: LegacyWriter, legacyPrefix: string): Promise<string> {
  await old.enqueue("step", ["ran"], { jid: "ran" });
  await old.enqueue("once", ["once-ran"], { jid: "once-ran", unique: "until-executed" });
  await old.enqueue("limited", ["first"]);
  await old.tick({ budgetMs: 3_000 });
  await old.enqueue("step", ["queued"], { jid: "queued" });
  await old.enqueue("once", ["claimed"], { unique: "until-executed" });
  await old.enqueue("limited", ["second"]);
  const legacy = `${legacyPrefix}jids:${DAY}:${Math.floor(Date.now() / DAY)}`;
  await redis.sadd(legacy, "legacy");
  await redis.pexpire(legacy, 2 * DAY);
  return old.enqueue("ping", ["doc"]);
}

/** Every promise checked in the new layout, all at once: duplicates refused or merged, nothing run twice, the rate limit still full. */
export async function expectPromisesKept(tq: Promising, runs: Map<string, number>, debounced: string): Promise<void> {
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
export async function migrateCut(cuts: number[], options: Parameters<typeof migratePartitions>[0]) {
  for (const at of cuts) {
    await expect(migratePartitions({ ...options, redis: cutAt(options.redis, at) })).rejects.toThrow(/cut/);
  }
  return migratePartitions(options);
}
