// The jobs of the clock phase (bench/chaos/clock-phase.ts) and the ledger
// they write to, on a Redis that is never faulted or paused. Each run of a
// unique key or an ordered id enters and leaves a holder key: entering one
// already held is an overlap. Each entry's fence must be larger than every
// fence that key saw before. An abort is recorded with its reason and the
// ledger's time, for the judge to tell a pause's aborts from spurious ones.
import { Redis } from "ioredis";
import type { JobContext, OrderedContext } from "../../src/index.js";

export const CLOCK_KEYS = ["k0", "k1", "k2", "k3"];

// KEYS: holder, last fence; ARGV: holder token, fence. Returns {overlapped, backwards}.
const ENTER = `
local overlapped = redis.call('EXISTS', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1], 'PX', 600000)
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
local fence = tonumber(ARGV[2])
if fence > last then redis.call('SET', KEYS[2], ARGV[2]) end
return { overlapped, fence > last and 0 or 1 }`;
const LEAVE = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end`;

export interface ClockLedger {
  redis: Redis;
  key(name: string): string;
  close(): void;
}

export function openClockLedger(url: string, prefix: string): ClockLedger {
  const redis = new Redis(url);
  redis.on("error", () => {});
  return { redis, key: (name) => prefix + name, close: () => redis.disconnect() };
}

/** Ledger time, ms: the one clock every process and the judge share. */
export async function ledgerNowMs(ledger: ClockLedger): Promise<number> {
  const [sec, usec] = await ledger.redis.time();
  return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
}

const abortable = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

async function exclusive(
  ledger: ClockLedger,
  what: string,
  fence: number,
  ms: number,
  signal: AbortSignal,
): Promise<void> {
  const token = `${process.pid}:${fence}`;
  const [overlapped, backwards] = (await ledger.redis.eval(
    ENTER,
    2,
    ledger.key(`holder:${what}`),
    ledger.key(`fence:${what}`),
    token,
    String(fence),
  )) as number[];
  if (overlapped) await ledger.redis.rpush(ledger.key("overlaps"), `${what} fence ${fence}`);
  if (backwards) await ledger.redis.rpush(ledger.key("backwards"), `${what} fence ${fence}`);
  try {
    await abortable(ms, signal);
  } finally {
    await ledger.redis.eval(LEAVE, 1, ledger.key(`holder:${what}`), token);
  }
  if (signal.aborted) {
    const reason = signal.reason as Error | undefined;
    await ledger.redis.rpush(
      ledger.key("aborts"),
      JSON.stringify({ what, at: await ledgerNowMs(ledger), name: reason?.name, message: reason?.message }),
    );
    throw reason;
  }
}

export function clockChaosJobs(ledger: ClockLedger) {
  return {
    jobs: {
      held: {
        perform: async ([key, ms, n]: [string, number, number], ctx: JobContext) => {
          await exclusive(ledger, `key:${key}`, ctx.fence!, ms, ctx.signal);
          await ledger.redis.sadd(ledger.key("done"), `job:${n}`);
        },
        uniqueKey: ([key]: [string, number, number]) => key,
      },
    },
    ordered: {
      seq: {
        perform: async (id: string, payloads: { n: number; ms: number }[], ctx: OrderedContext) => {
          await exclusive(ledger, `id:${id}`, ctx.fence, Math.max(...payloads.map((p) => p.ms)), ctx.signal);
          await ledger.redis.sadd(ledger.key("done"), ...payloads.map((p) => `payload:${p.n}`));
        },
      },
    },
  };
}
