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
// runs already held it.
import { Redis } from "ioredis";
import { overlapDetector, type OverlapDetector } from "./overlap.js";

export interface Ledger extends Pick<OverlapDetector, "enter" | "leave"> {
  start(id: string, attempt: number): Promise<void>;
  finish(id: string, attempt: number, ok: boolean): Promise<void>;
  /** Records a start of an expiring job, at the ledger Redis' time. */
  stamp(id: string, attempt: number): Promise<void>;
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
