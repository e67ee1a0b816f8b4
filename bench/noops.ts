// Filling a queue with jobs and ticking it empty: the two halves of every cost bench's drain.
import type { Redis } from "ioredis";
import type { TickOptions, TickReport } from "../src/index.js";
import { scriptUsec } from "./wire.js";

/** Enqueues jobs 0..n-1 made by `job`, `chunk` to an enqueueBulk call (one call of 20,000 would be one huge script run). */
export async function enqueueInChunks<T>(
  enqueueBulk: (jobs: T[]) => Promise<unknown>,
  n: number,
  job: (i: number) => T,
  chunk = 1_000,
): Promise<void> {
  for (let i = 0; i < n; i += chunk) {
    await enqueueBulk(Array.from({ length: Math.min(chunk, n - i) }, (_, k) => job(i + k)));
  }
}

export interface TickUntil {
  batch: number;
  /** Jobs a tick took off the queue; default the ones that succeeded. */
  counted?: (report: TickReport) => number;
  /** Whether a tick that took nothing means the drain is stuck; default: it fetched nothing. */
  stalled?: (report: TickReport) => boolean | Promise<boolean>;
}

/** Ticks (batch and concurrency `batch`) until `n` jobs are counted; throws when a tick finds nothing left to do. */
export async function tickUntil(
  tq: { tick(options: TickOptions): Promise<TickReport> },
  n: number,
  { batch, counted = (r) => r.succeeded, stalled = (r) => r.fetched === 0 }: TickUntil,
): Promise<void> {
  let done = 0;
  while (done < n) {
    const report = await tq.tick({ batch, concurrency: batch, budgetMs: 60_000 });
    done += counted(report);
    if (await stalled(report)) throw new Error(`drained only ${done} of ${n}`);
  }
}

/** What a drain measured: its wall-clock rate and the Redis script time it took per job. */
export interface RateAndScript {
  rate: number;
  usecPerJob: number;
}

/** Ticks the `n` jobs enqueued on the private `redis` away, timed, then empties it. */
export async function measuredDrain(
  redis: Redis,
  tq: { tick(options: TickOptions): Promise<TickReport> },
  n: number,
  until: TickUntil,
): Promise<RateAndScript> {
  const usecBefore = await scriptUsec(redis);
  const start = performance.now();
  await tickUntil(tq, n, until);
  const rate = n / ((performance.now() - start) / 1000);
  const usecPerJob = ((await scriptUsec(redis)) - usecBefore) / n;
  await redis.flushdb();
  return { rate, usecPerJob };
}
