// The ledger: a Redis that is never faulted (the shared one, under a key
// prefix of its own) where every handler records each start and each finish
// of a job, by the job's id and attempt (`ctx.attempt`), before tickq hears
// of it. Three hashes, field "ID#ATTEMPT" → how many times:
//   start  the handler began
//   ok     it finished and succeeded
//   fail   it finished and threw
// and `rated:KEY`, a sorted set of the starts of rate-limited jobs by the
// ledger Redis' clock (one clock for every worker), and, for flow-controlled
// jobs, the overlap detector; `stamps`, a sorted set of the starts of
// expiring jobs by the ledger's clock ("ID#ATTEMPT#N"); and, for flow-controlled
// jobs, the overlap detector (bench/chaos/overlap.ts)
// under the same prefix: a run of a key entered while its limit of live
// runs already held it. For the cancel phase (bench/chaos/cancel-phase.ts),
// `starts`, each start of a cancellable job by the ledger Redis' clock, and
// `cancels`, the earliest time a cancel of the job returned; for its ordered
// ids (bench/chaos/cancel-ordered.ts), notes: the earliest time of a named
// moment of a member (a payload's enqueue returned, a cancel was sent).
import { Redis } from "ioredis";
import { overlapDetector, type OverlapDetector } from "./overlap.js";

export interface Ledger extends Pick<OverlapDetector, "enter" | "leave"> {
  start(id: string, attempt: number): Promise<void>;
  finish(id: string, attempt: number, ok: boolean): Promise<void>;
  /** Records a start of an expiring job, at the ledger Redis' time. */
  stamp(id: string, attempt: number): Promise<void>;
  /** Records a start of a cancellable job, at the ledger Redis' time (before the handler does anything). */
  started(id: string): Promise<void>;
  /** Records that a cancel of `id` returned, at the ledger Redis' time (the earliest is kept). */
  cancelReturned(id: string): Promise<void>;
  /** Starts of cancellable jobs ("ID#n" → ms) and the earliest cancel return of each (id → ms), by the ledger's clock. */
  cancelTimes(): Promise<{ starts: Map<string, number[]>; returned: Map<string, number> }>;
  /** Notes `member` in the set `name` at the ledger Redis' time (the earliest is kept). */
  note(name: string, member: string): Promise<void>;
  /** The notes of `name`: member → ms by the ledger's clock. */
  notes(name: string): Promise<Map<string, number>>;
  /** Records a start of a rate-limited job of `key` (`run` names the run), at the ledger Redis' time. */
  rated(key: string, run: string): Promise<void>;
  read(): Promise<LedgerView>;
  /** Deletes the ledger's keys. */
  clear(): Promise<void>;
  close(): void;
}

export interface LedgerView {
  /** "ID#ATTEMPT" → count, for each hash. */
  start: Map<string, number>;
  ok: Map<string, number>;
  fail: Map<string, number>;
  /** Rate-limited key → its starts, ms by the ledger's clock, in order. */
  rated: Map<string, number[]>;
  /** Expiring job id → its starts, ms by the ledger's clock. */
  stamps: Map<string, number[]>;
  /** Runs of a key that entered while its limit of live runs held it, in words. */
  overlaps: string[];
}

// The ledger Redis' time in ms as a score; with LT, an existing member keeps its earlier score.
const STAMP_EARLIEST =
  "local t = redis.call('TIME') redis.call('ZADD', KEYS[1], 'LT', t[1] * 1000 + math.floor(t[2] / 1000), ARGV[1]) redis.call('EXPIRE', KEYS[1], 86400)";
// A start stamped with the ledger Redis' time, in ms.
const STAMP =
  "local t = redis.call('TIME') redis.call('ZADD', KEYS[1], t[1] * 1000 + math.floor(t[2] / 1000), ARGV[1]) redis.call('EXPIRE', KEYS[1], 86400)";

export const entry = (id: string, attempt: number) => `${id}#${attempt}`;
export const idOf = (field: string) => field.slice(0, field.lastIndexOf("#"));

export function openLedger(url: string, prefix: string): Ledger {
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  redis.on("error", () => {});
  const key = (name: string) => `${prefix}${name}`;
  // Keys expire a day after the last write: an interrupted run leaves nothing for long.
  const count = async (hash: string, field: string) =>
    void (await redis.multi().hincrby(hash, field, 1).expire(hash, 86_400).exec());
  const asMap = (hash: Record<string, string>) => new Map(Object.entries(hash).map(([k, v]) => [k, Number(v)]));
  const detector = overlapDetector(redis, prefix);
  return {
    enter: (key, limit) => detector.enter(key, limit),
    leave: (key, token) => detector.leave(key, token),
    start: (id, attempt) => count(key("start"), entry(id, attempt)),
    finish: (id, attempt, ok) => count(key(ok ? "ok" : "fail"), entry(id, attempt)),
    stamp: async (id, attempt) =>
      void (await redis.eval(STAMP, 1, key("stamps"), `${entry(id, attempt)}#${Math.random().toString(36).slice(2)}`)),
    started: async (id) => void (await redis.eval(STAMP, 1, key("starts"), `${id}#${Math.random()}`)),
    cancelReturned: async (id) => void (await redis.eval(STAMP_EARLIEST, 1, key("cancels"), id)),
    async cancelTimes() {
      const pairs = (flat: string[]) =>
        flat.flatMap((v, i) => (i % 2 === 0 ? [[v, Number(flat[i + 1])] as const] : []));
      const starts = new Map<string, number[]>();
      for (const [member, ms] of pairs(await redis.zrange(key("starts"), "0", "-1", "WITHSCORES"))) {
        const id = idOf(member);
        starts.set(id, [...(starts.get(id) ?? []), ms]);
      }
      const returned = new Map(pairs(await redis.zrange(key("cancels"), "0", "-1", "WITHSCORES")));
      return { starts, returned };
    },
    note: async (name, member) => void (await redis.eval(STAMP_EARLIEST, 1, key(`note:${name}`), member)),
    async notes(name) {
      const flat = await redis.zrange(key(`note:${name}`), "0", "-1", "WITHSCORES");
      const out = new Map<string, number>();
      for (let i = 0; i < flat.length; i += 2) out.set(flat[i]!, Number(flat[i + 1]));
      return out;
    },
    rated: async (rateKey, run) => void (await redis.eval(STAMP, 1, key(`rated:${rateKey}`), run)),
    read: async () => {
      const [start, ok, fail] = await Promise.all(["start", "ok", "fail"].map((name) => redis.hgetall(key(name))));
      const rated = new Map<string, number[]>();
      for (const name of await redis.keys(key("rated:*"))) {
        const flat = await redis.zrange(name, "0", "-1", "WITHSCORES");
        rated.set(name.slice(key("rated:").length), flat.filter((_, i) => i % 2 === 1).map(Number));
      }
      const stamps = new Map<string, number[]>();
      const flat = await redis.zrange(key("stamps"), "0", "-1", "WITHSCORES");
      for (let i = 0; i < flat.length; i += 2) {
        const id = idOf(idOf(flat[i]!));
        stamps.set(id, [...(stamps.get(id) ?? []), Number(flat[i + 1])]);
      }
      return {
        start: asMap(start!),
        stamps,
        ok: asMap(ok!),
        fail: asMap(fail!),
        rated,
        overlaps: (await detector.read()).overlaps,
      };
    },
    async clear() {
      const keys = await redis.keys(`${prefix}*`);
      for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    },
    close: () => redis.disconnect(),
  };
}
