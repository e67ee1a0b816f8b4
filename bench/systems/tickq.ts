import { Redis } from "ioredis";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { createTickq, type RedisAdapter, type TelemetryOptions, type Tickq } from "../../src/index.js";
import { durationOf, jobCount, work, type Jobs } from "../jobs.js";
import type { System, SystemFactory } from "./types.js";

const benchJobs = { noop: () => {}, sleep: ([ms]: [number]) => work(ms) };
type BenchTickq = Tickq<typeof benchJobs>;

export const benchTickq = (redis: RedisAdapter, prefix: string, telemetry?: TelemetryOptions): BenchTickq =>
  createTickq({ redis, prefix, jobs: benchJobs, ...(telemetry ? { telemetry } : {}) });

export async function enqueueJobs(tq: BenchTickq, jobs: Jobs): Promise<void> {
  const sleeping = typeof jobs !== "number";
  await tq.enqueueBulk(
    Array.from({ length: jobCount(jobs) }, (_, i) =>
      sleeping ? { name: "sleep", args: [durationOf(jobs, i)] } : { name: "noop", args: [i] },
    ),
  );
}

/** Ticks back to back until n jobs succeeded; sums the round trips they report. */
export async function drainTicks(
  tq: BenchTickq,
  n: number,
  batch: number,
  concurrency: number,
  budgetMs = 60_000,
): Promise<{ roundTrips: number }> {
  let done = 0;
  let roundTrips = 0;
  while (done < n) {
    const report = await tq.tick({ batch, concurrency, budgetMs });
    done += report.succeeded;
    roundTrips += report.roundTrips;
    if (report.fetched === 0) throw new Error(`tickq drained only ${done} of ${n}`);
  }
  return { roundTrips };
}

export const tickqSystem: SystemFactory = (redisUrl, label) => tickqSystemWith(redisUrl, label);

/** `telemetry`: the same system with OpenTelemetry spans on (bench/systems/tickq-traced.ts). */
export const tickqSystemWith = async (
  redisUrl: string,
  label: string,
  telemetry?: TelemetryOptions,
): Promise<System> => {
  const redis = new Redis(redisUrl);
  const prefix = `bench:${label}:`;
  const tq = benchTickq(ioredisAdapter(redis), prefix, telemetry);
  const system: System = {
    name: telemetry ? "tickq traced" : "tickq",
    enqueue: (jobs) => enqueueJobs(tq, jobs),
    drain: (n, options = {}) => drainTicks(tq, n, options.batch ?? 100, options.concurrency ?? 100),
    async idle(ms) {
      // a cron trigger: one tick a minute on an empty queue, at 0, 60 s, … below ms
      // (counted, not clocked: a timer that wakes a millisecond early adds no tick)
      const start = Date.now();
      for (let at = 0; at < ms; at += 60_000) {
        await new Promise((r) => setTimeout(r, Math.max(0, start + at - Date.now())));
        await tq.tick();
      }
      await new Promise((r) => setTimeout(r, Math.max(0, start + ms - Date.now())));
    },
    async close() {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    },
  };
  return system;
};
