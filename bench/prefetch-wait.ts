// How long a fetched job waits for a slot: from the reply of the call that
// fetched it (begin or step) into the tick that runs it, to the start of its
// handler. (A job a busy tick handed back waited there at most the hold
// time, src/tick/prefetch.ts; the table counts those jobs.) Two tick
// loops share one queue, as two cron-started functions would; each job
// sleeps a duration drawn from a fixed seed. With jobs of 0–100 ms a job
// waits about a round trip; with jobs of 0–10 s a tick whose slots are busy
// must not keep what it fetched while the other tick could run it.
//   npx tsx bench/prefetch-wait.ts   (also part of `npm run bench`)
//   --short-jobs 2000  --long-jobs 40  --long-seconds 60 (the 0–10 s run's time limit)
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { findRedis } from "../src/platforms/node/find-redis.js";
import { createTickq, type RedisAdapter } from "../src/index.js";
import { scriptSha } from "../src/redis/script-sha.js";
import { decode } from "../src/protocol/define.js";
import * as protocol from "../src/protocol/index.js";
import { readFetched, type FetchedGroups } from "../src/tick/passes/fetch.js";
import type { RedisReply } from "../src/redis/types.js";
import { durations, work } from "./jobs.js";

export interface WaitRun {
  label: string;
  jobs: number;
  concurrency: number;
  batch: number;
  /** ms, every job that ran */
  waits: number[];
  ran: number;
  /** Jobs handed back unstarted (report.requeued, summed). */
  requeued: number;
  roundTrips: number;
  seconds: number;
}

/** Notes, for each job a begin or step call fetched, when its reply came; a job is known by its args[1]. */
export async function timingAdapter(inner: RedisAdapter, fetchedAt: Map<number, number>): Promise<RedisAdapter> {
  const calls = [protocol.begin, protocol.step];
  const shas = new Map(await Promise.all(calls.map(async (call) => [await scriptSha(call.script), call] as const)));
  const note = (call: (typeof calls)[number] | undefined, reply: RedisReply) => {
    if (call === undefined || !Array.isArray(reply)) return reply;
    const now = performance.now();
    // The last fetch: the tick that runs the job fetched it then.
    const { fetched } = decode(call, reply) as { fetched: FetchedGroups };
    for (const job of readFetched(fetched)) fetchedAt.set((JSON.parse(job.raw) as { args: number[] }).args[1]!, now);
    return reply;
  };
  return {
    evalsha: async (sha, keys, args) => note(shas.get(sha), await inner.evalsha(sha, keys, args)),
    eval: async (text, keys, args) => {
      return note(
        calls.find((call) => call.script.text === text),
        await inner.eval(text, keys, args),
      );
    },
  };
}

export async function measureWait(
  redisUrl: string,
  o: { label: string; durations: number[]; concurrency: number; batch: number; ticks: number; limitMs: number },
): Promise<WaitRun> {
  const redis = new Redis(redisUrl);
  const prefix = `bench:prefetch-wait:${Date.now()}:`;
  const fetchedAt = new Map<number, number>();
  const startedAt = new Map<number, number>();
  const jobs = {
    sleep: async ([ms, i]: [number, number]) => {
      startedAt.set(i, performance.now());
      await work(ms);
    },
  };
  const tq = createTickq({ redis: await timingAdapter(ioredisAdapter(redis), fetchedAt), prefix, jobs });
  const run: WaitRun = {
    label: o.label,
    jobs: o.durations.length,
    concurrency: o.concurrency,
    batch: o.batch,
    waits: [],
    ran: 0,
    requeued: 0,
    roundTrips: 0,
    seconds: 0,
  };
  try {
    await tq.enqueueBulk(o.durations.map((ms, i) => ({ name: "sleep" as const, args: [ms, i] as [number, number] })));
    const t = performance.now();
    const until = t + o.limitMs;
    const loop = async () => {
      while (startedAt.size < o.durations.length && performance.now() < until) {
        const report = await tq.tick({
          concurrency: o.concurrency,
          batch: o.batch,
          budgetMs: Math.max(1_000, Math.min(30_000, until - performance.now())),
        });
        run.requeued += report.requeued;
        run.roundTrips += report.roundTrips;
        if (report.fetched === 0) await new Promise((r) => setTimeout(r, 20));
      }
    };
    await Promise.all(Array.from({ length: o.ticks }, loop));
    run.seconds = (performance.now() - t) / 1000;
    for (const [i, start] of startedAt) {
      const fetched = fetchedAt.get(i);
      if (fetched !== undefined) run.waits.push(start - fetched);
    }
    run.ran = startedAt.size;
  } finally {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
  return run;
}

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};

export function printWaits(runs: WaitRun[]): void {
  console.log(
    "\nPrefetch wait: from the reply that fetched a job into the tick that ran it, to its start; two tick loops on one queue (seed 1)",
  );
  console.table(
    runs.map((r) => ({
      jobs: r.label,
      "concurrency × batch": `${r.concurrency} × ${r.batch}`,
      ran: `${r.ran} of ${r.jobs}`,
      "wait p50 ms": quantile(r.waits, 0.5).toFixed(1),
      "wait p99 ms": quantile(r.waits, 0.99).toFixed(1),
      "longest wait ms": Math.max(...r.waits).toFixed(1),
      "handed back": r.requeued,
      "round trips/job": (r.roundTrips / Math.max(1, r.ran)).toFixed(3),
      seconds: r.seconds.toFixed(1),
    })),
  );
}

export async function runPrefetchWaitBench(
  redisUrl: string,
  o: { shortJobs: number; longJobs: number; longLimitMs: number },
): Promise<WaitRun[]> {
  const runs: WaitRun[] = [];
  if (o.shortJobs > 0) {
    runs.push(
      await measureWait(redisUrl, {
        label: "0–100 ms",
        durations: durations(o.shortJobs, 1, 100),
        concurrency: 50,
        batch: 100,
        ticks: 2,
        limitMs: 60_000,
      }),
    );
  }
  if (o.longJobs > 0) {
    runs.push(
      await measureWait(redisUrl, {
        label: "0–10 s",
        durations: durations(o.longJobs, 1, 10_000),
        concurrency: 5,
        batch: 10,
        ticks: 2,
        limitMs: o.longLimitMs,
      }),
    );
  }
  return runs;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      "short-jobs": { type: "string", default: "2000" },
      "long-jobs": { type: "string", default: "40" },
      "long-seconds": { type: "string", default: "60" },
    },
  });
  const found = await findRedis();
  const runs = await runPrefetchWaitBench(found.url, {
    shortJobs: Number(values["short-jobs"]),
    longJobs: Number(values["long-jobs"]),
    longLimitMs: Number(values["long-seconds"]) * 1000,
  });
  await found.stop();
  printWaits(runs);
  process.exit(0);
}
