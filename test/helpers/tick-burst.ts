// A burst of ticks under one prefix, kicked (enqueues with `kick: true`) and
// empty (`tick()` with nothing to do), counted by the begin calls that
// reached Redis; then what the prefix holds once the ticks' leases expired.
// Shared by the integration test (ioredis) and the fault run (every adapter).
import type { Redis } from "ioredis";
import { expect } from "vitest";
import { decode } from "../../src/protocol/define.js";
import * as protocol from "../../src/protocol/index.js";
import { BEGUN_GUARD_BYTES } from "../../bench/chaos/memory.js";
import { scripts } from "../../src/lua/index.js";
import { createTickq, type JobLogger, type RedisAdapter } from "../../src/index.js";
import { scriptSha } from "../../src/redis/script-sha.js";
import { sleep } from "./redis.js";

export interface CountedBegins {
  adapter: RedisAdapter;
  /** Begin calls sent (a resend counts again). */
  count(): number;
  /** The keys and ARGV of the first begin sent, to send it again. */
  first(): { keys: string[]; args: string[] } | undefined;
}

/** Wraps `adapter` to count the begin calls it sends. */
export async function countBegins(adapter: RedisAdapter): Promise<CountedBegins> {
  const sha = await scriptSha(scripts.begin);
  let count = 0;
  let first: { keys: string[]; args: string[] } | undefined;
  const saw = (keys: string[], args: string[]) => {
    count++;
    first ??= { keys, args };
  };
  return {
    adapter: {
      ...adapter,
      evalsha: (s, keys, args) => {
        if (s === sha) saw(keys, args);
        return adapter.evalsha(s, keys, args);
      },
      eval: (text, keys, args) => {
        if (text === scripts.begin.text) saw(keys, args);
        return adapter.eval(text, keys, args);
      },
      wait: adapter.wait?.bind(adapter),
    },
    count: () => count,
    first: () => first,
  };
}

export interface BurstOptions {
  redis: RedisAdapter;
  prefix: string;
  /** Begin calls to reach in all. */
  ticks: number;
  /** Of them, begins of ticks that enqueues kicked (the rest are empty ticks); 0 at maxmemory, where enqueues are refused. */
  kicked: number;
  /** Short, so the finished ticks' leases (kept one lease for a resent finish) are gone soon after. */
  leaseMs: number;
  logger?: JobLogger;
}

/**
 * Ticks `ticks` times: first by kicked enqueues of a no-op job, 50 at a time, then empty ticks on 50 lanes. The
 * windows the burst opens are short (leases, enqueue tokens, kick slots), so its keys that expire are gone soon.
 */
export async function tickBurst(o: BurstOptions): Promise<CountedBegins> {
  const counted = await countBegins(o.redis);
  const quiet: JobLogger = { info: () => {}, warn: () => {}, error: () => {} };
  const tq = createTickq({
    redis: counted.adapter,
    prefix: o.prefix,
    jobs: { noop: () => {} },
    replayWindowMs: 1_000,
    kick: { budgetMs: 1_000, tick: { leaseMs: o.leaseMs } },
    logger: o.logger ?? quiet,
  });
  const kept: Promise<unknown>[] = [];
  const kicking = tq.scope({ waitUntil: (p) => void kept.push(p) });
  while (counted.count() < o.kicked) {
    await Promise.all(Array.from({ length: 50 }, () => kicking.enqueue("noop", [], { kick: true })));
    await Promise.all(kept.splice(0));
  }
  const lanes = Array.from({ length: 50 }, async () => {
    while (counted.count() < o.ticks) await tq.tick({ budgetMs: 200, leaseMs: o.leaseMs });
  });
  await Promise.all(lanes);
  return counted;
}

/** What expires a window after the burst: leases, enqueue tokens, kick slots. */
const EXPIRING = /^(tick:|enq:|kicks)/;

/** Waits until none of the burst's expiring keys is left under the prefix; the names of those left. */
export async function windowsPassed(redis: Redis, prefix: string, withinMs: number): Promise<string[]> {
  let left: string[] = [];
  for (const t = Date.now(); Date.now() - t < withinMs; await sleep(200)) {
    left = (await keysUnder(redis, prefix)).map((k) => k.slice(prefix.length)).filter((k) => EXPIRING.test(k));
    if (left.length === 0) break;
  }
  return left.slice(0, 5);
}

export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`, "COUNT", 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== "0");
  return keys;
}

/** Bytes Redis reports (MEMORY USAGE) for every key under `prefix`, in all and by the key's first name. */
export async function memoryUnder(
  redis: Redis,
  prefix: string,
): Promise<{ total: number; byName: Map<string, number> }> {
  const byName = new Map<string, number>();
  let total = 0;
  for (const key of await keysUnder(redis, prefix)) {
    const bytes = Number((await redis.memory("USAGE", key, "SAMPLES", "0")) ?? 0);
    const name = key.slice(prefix.length).split(":")[0]!;
    byName.set(name, (byName.get(name) ?? 0) + bytes);
    total += bytes;
  }
  return { total, byName };
}

/**
 * Ticks 20,000 times under `prefix` (2,000 of them kicked), then: the burst's first begin, sent again, starts nothing; once the leases
 * expired, the prefix holds at most 1 MiB, and the begin guard at most its stated bound.
 */
export async function expectBurstBounded(adapter: RedisAdapter, redis: Redis, prefix: string): Promise<void> {
  const counted = await tickBurst({ redis: adapter, prefix, ticks: 20_000, kicked: 2_000, leaseMs: 1_000 });
  expect(counted.count()).toBeGreaterThanOrEqual(20_000);
  const first = counted.first()!;
  const tickId = first.args[1]!;
  const replayed = <{ leaseHeld: boolean }>(
    decode(protocol.begin, await adapter.evalsha(await scriptSha(scripts.begin), first.keys, first.args))
  );
  expect(replayed.leaseHeld).toBe(false);
  expect(await redis.exists(`${prefix}tick:${tickId}`)).toBe(0);
  expect(await redis.hexists(`${prefix}ticks`, tickId)).toBe(0);
  expect(await windowsPassed(redis, prefix, 20_000)).toEqual([]);
  const { total, byName } = await memoryUnder(redis, prefix);
  const shown = JSON.stringify(Object.fromEntries(byName));
  expect(byName.get("begun") ?? 0, shown).toBeLessThanOrEqual(BEGUN_GUARD_BYTES);
  expect(total, shown).toBeLessThanOrEqual(1024 * 1024);
}
