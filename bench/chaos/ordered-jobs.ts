// The ordered job of the chaos run, and its ledger. Payloads are numbered
// (`{ n }`, score n) and spread over ids; the handler, run by the chaos
// workers, records on the never-faulted ledger Redis:
//   seen       every payload n of a run that succeeded (recorded before
//              tickq acks it, so a run whose ack is lost runs again)
//   overlaps   an id entered while another live process held it (the
//              overlap detector, bench/chaos/overlap.ts)
//   stale      a run whose fence was not above the last one that succeeded
//              for its id (the fence must grow with every execution)
//   disorder   a run whose payloads did not come in the order they were
//              enqueued (numbered in that order, so n must grow), a payload
//              that first succeeds after a higher one of its id did (runs
//              after runs: what maxPayloads leaves behind a run must keep
//              its place), or a run with more payloads than CHAOS_MAX_PAYLOADS
// A run fails at random (retry: many, backoff 0), and stops at once when
// ctx.signal aborts: tickq aborts an ordered handler before its lease can
// expire, so a handler that obeys never overlaps the id's next holder.
import { Redis } from "ioredis";
import type { OrderedContext, OrderedRegistry } from "../../src/index.js";
import { overlapDetector } from "./overlap.js";
import { abortableSleep as abortable, between, type Rng } from "./rng.js";

export interface OrderedLedger {
  /** Marks a run of id (the overlap detector, bench/chaos/overlap.ts); the token is for leave(). */
  enter(id: string): Promise<string>;
  leave(id: string, token: string): Promise<void>;
  succeeded(id: string, fence: number, payloads: number[]): Promise<void>;
  read(): Promise<{ seen: Set<number>; overlaps: string[]; stale: string[]; disorder: string[] }>;
  clear(): Promise<void>;
  close(): void;
}

// Per id, the highest payload that succeeded (KEYS[2]); answers the payloads of this run (ARGV[2..])
// that succeed for the first time (not in `seen`, KEYS[1]) below it: they ran after a later one. A payload
// seen before runs again after a lost ack, which is no disorder. Adds the run to `seen`.
const ACROSS_RUNS = `local high = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local late = {}
for k = 2, #ARGV do
  local n = tonumber(ARGV[k])
  if n < high and redis.call('SISMEMBER', KEYS[1], ARGV[k]) == 0 then late[#late + 1] = ARGV[k] end
  if n > high then high = n end
end
redis.call('HSET', KEYS[2], ARGV[1], high)
redis.call('SADD', KEYS[1], unpack(ARGV, 2))
return late`;

// Keeps the largest fence that succeeded per id; answers the previous one when the new one is not larger.
const FENCE = `local last = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) > last then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) return 0 end
return last`;

export function openOrderedLedger(url: string, prefix: string): OrderedLedger {
  // The workers' maxPayloads (bench/chaos-ordered-worker.ts), checked per run; none: no cap to check.
  const cap = process.env.CHAOS_MAX_PAYLOADS ? Number(process.env.CHAOS_MAX_PAYLOADS) : undefined;
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  redis.on("error", () => {});
  const key = (name: string) => `${prefix}${name}`;
  const expire = (k: string) => redis.expire(k, 86_400);
  const detector = overlapDetector(redis, prefix);
  return {
    enter: (id) => detector.enter(id),
    leave: (id, token) => detector.leave(id, token),
    async succeeded(id, fence, payloads) {
      if (payloads.length > 0) {
        const late = (await redis.eval(
          ACROSS_RUNS,
          2,
          key("seen"),
          key("high"),
          id,
          ...payloads.map(String),
        )) as string[];
        if (late.length > 0)
          await redis.rpush(key("disorder"), `${id}: ${late.join(", ")} first ran after a higher one`);
      }
      if (cap !== undefined && payloads.length > cap)
        await redis.rpush(key("disorder"), `${id}: ${payloads.length} payloads in a run, maxPayloads ${cap}`);
      if (payloads.some((n, i) => i > 0 && n <= payloads[i - 1]!))
        await redis.rpush(key("disorder"), `${id}: ${payloads.slice(0, 20).join(", ")}`);
      const last = Number(await redis.eval(FENCE, 1, key("fences"), id, String(fence)));
      if (last > 0) await redis.rpush(key("stale"), `${id}: fence ${fence} after ${last}`);
      await Promise.all([expire(key("seen")), expire(key("high")), expire(key("fences")), expire(key("disorder"))]);
    },
    async read() {
      const [seen, overlaps, stale, disorder] = await Promise.all([
        redis.smembers(key("seen")),
        redis.lrange(key("overlaps"), 0, -1),
        redis.lrange(key("stale"), 0, -1),
        redis.lrange(key("disorder"), 0, -1),
      ]);
      return { seen: new Set(seen.map(Number)), overlaps, stale, disorder };
    },
    async clear() {
      const keys = await redis.keys(`${prefix}*`);
      for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    },
    close: () => redis.disconnect(),
  };
}

export function orderedChaosJobs(ledger: OrderedLedger, failRate = 0.1) {
  return {
    chaosOrdered: {
      retry: 1_000,
      backoffMs: () => 0,
      perform: async (id: string, payloads: { n: number }[], ctx: OrderedContext) => {
        const token = await ledger.enter(id);
        try {
          await abortable(Math.floor(Math.random() * 30), ctx.signal);
          if (Math.random() < failRate) throw new Error(`chaos: ${id} fails at random`);
          await ledger.succeeded(
            id,
            ctx.fence,
            payloads.map((p) => p.n),
          );
        } finally {
          await ledger.leave(id, token);
        }
      },
    },
  } satisfies OrderedRegistry;
}

export interface PlannedPayload {
  id: string;
  n: number;
}

/**
 * The score a planned payload is sent with: its number, or none on every other id (Redis' time, which
 * must keep the enqueue order too, even for payloads of one id in one bulk call).
 */
export function plannedScore(p: PlannedPayload): { score?: number } {
  return Number(p.id.slice(p.id.lastIndexOf("-") + 1)) % 2 === 0 ? {} : { score: p.n };
}

/** `count` payloads over `ids` ids, numbered from 1. */
export function planPayloads(count: number, ids: number, rng: Rng, tag: string): PlannedPayload[] {
  return Array.from({ length: count }, (_, i) => ({ id: `${tag}-${between(rng, 0, ids - 1)}`, n: i + 1 }));
}
