// What every chaos phase does at its end: wait until tickq holds no work,
// then delete what the phase wrote under its prefix.
//
// How long to wait: on a loaded machine a concurrency-limited key drains
// at its limit × the time a run of it takes end to end (fetch, the job,
// the ack that frees the slot and sends the next parked job on), which can
// be 20 times slower than on an idle one; a fixed window then fails a key
// that is only slow. So the wait goes on while the work left keeps falling,
// and gives up once it has not reached a new low for `stallMs` (a key whose
// slot leaked, or anything else that stopped) or at `capMs` in all.
import type { Redis } from "ioredis";
import type { Stats } from "../../src/stats/types.js";
import { sleep } from "./rng.js";

export interface SettleLimits {
  /** Give up once the work left has not reached a new low for this long. */
  stallMs: number;
  /** Give up after this long in all, progress or not. */
  capMs: number;
  /** Idle must hold this long (twice a check apart) to count as settled. */
  leaseMs: number;
}

export interface SettleOutcome {
  settled: boolean;
  /** Seconds it waited. */
  seconds: number;
  /** Work left when it began, and when it stopped. */
  workAtStart: number;
  workAtEnd: number;
  /** Why it gave up, in words; undefined once settled. */
  why?: string;
}

/** Waits until tickq holds no work (nothing queued, scheduled, in retry, in process, parked on a busy key or ordered), twice a lease apart, while the work left keeps falling (SettleLimits). */
export async function settle(tq: { stats(): Promise<Stats> }, limits: SettleLimits): Promise<SettleOutcome> {
  const started = Date.now();
  let idleSince: number | undefined;
  let lowest = Number.POSITIVE_INFINITY;
  let lowestAt = started;
  let workAtStart: number | undefined;
  let work = 0;
  const outcome = (settled: boolean, why?: string): SettleOutcome => ({
    settled,
    seconds: Math.round((Date.now() - started) / 1000),
    workAtStart: workAtStart ?? 0,
    workAtEnd: work,
    ...(why ? { why } : {}),
  });
  for (;;) {
    const now = Date.now();
    const s = await tq.stats().catch(() => undefined);
    if (s) {
      work = workLeft(s);
      workAtStart ??= work;
      if (work < lowest) [lowest, lowestAt] = [work, now];
    }
    if (!s || work > 0) idleSince = undefined;
    else if (idleSince === undefined) idleSince = now;
    else if (now - idleSince >= limits.leaseMs) return outcome(true);
    const waited = Math.round((now - started) / 1000);
    if (now - lowestAt >= limits.stallMs)
      return outcome(false, `no progress for ${Math.round(limits.stallMs / 1000)} s (${work} left after ${waited} s)`);
    if (now - started >= limits.capMs)
      return outcome(false, `still draining at the cap of ${waited} s (${workAtStart} → ${work} left)`);
    await sleep(200);
  }
}

/** The settle limits of a phase whose stall window is `settleSeconds`: five of them in all. */
export function settleLimits(settleSeconds: number, leaseMs: number): SettleLimits {
  return { stallMs: settleSeconds * 1000, capMs: 5 * settleSeconds * 1000, leaseMs };
}

function workLeft(s: Stats): number {
  const ordered = Object.values(s.ordered).reduce((a, x) => a + x.waiting + x.running, 0);
  const parked = Object.values(s.flow).reduce((a, f) => a + f.waiting, 0);
  return Object.values(s.queues).reduce((a, b) => a + b, 0) + s.scheduled + s.retry + s.inflight + parked + ordered;
}

export async function deleteUnder(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}*`).catch(() => [] as string[]);
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
}
