// What partitions cost on one Redis (docs/operate/cluster.md): N no-op jobs
// drained by ticks with partitions 1 and 3, alternating round by round on a
// private Redis. Figures: jobs/s, round trips per job, Redis script µs per
// job. On one Redis partitions cannot add throughput (one core does every
// script); this shows the overhead a partitioned deployment pays per job.
// The scaling over a cluster's masters is bench/cluster-scaling (clusterops).
//   npx tsx bench/partitions-one-redis.ts --jobs 20000 --runs 3
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { createTickq } from "../src/index.js";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "20000" },
    runs: { type: "string", default: "3" },
    batch: { type: "string", default: "100" },
  },
});
const N = Number(values.jobs);
const RUNS = Number(values.runs);
const BATCH = Number(values.batch);
const COUNTS = [1, 3];

async function scriptUsec(redis: Redis): Promise<number> {
  const info = await redis.info("commandstats");
  let total = 0;
  for (const m of info.matchAll(/^cmdstat_(?:evalsha|eval):calls=\d+,usec=(\d+)/gm)) total += Number(m[1]);
  return total;
}

async function drain(redis: Redis, partitions: number, n: number, prefix: string) {
  const tq = createTickq({
    redis: ioredisAdapter(redis),
    prefix,
    partitions,
    jobs: { noop: (_args: [number]) => {} },
    logger: { info() {}, warn: console.warn, error: console.error },
  });
  for (let i = 0; i < n; i += 1_000)
    await tq.enqueueBulk(
      Array.from({ length: Math.min(1_000, n - i) }, (_, k) => ({ name: "noop" as const, args: [i + k] as [number] })),
    );
  const usecBefore = await scriptUsec(redis);
  const started = performance.now();
  let done = 0;
  let trips = 0;
  while (done < n) {
    const report = await tq.tick({ batch: BATCH, concurrency: BATCH, budgetMs: 60_000 });
    done += report.succeeded;
    trips += report.roundTrips;
    if (report.fetched === 0 && !report.more && done < n) throw new Error(`drained ${done} of ${n}`);
  }
  const seconds = (performance.now() - started) / 1000;
  const usec = (await scriptUsec(redis)) - usecBefore;
  await redis.flushdb();
  return { jobsPerSec: n / seconds, tripsPerJob: trips / n, usecPerJob: usec / n };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const server = await startPrivate();
const redis = new Redis(server.url);
try {
  console.log(`private Redis ${server.url}; ${N} no-op jobs per drain, batch ${BATCH}, ${RUNS} rounds, alternating`);
  for (const p of COUNTS) await drain(redis, p, Math.ceil(N / 10), `warm${p}:`);
  const results = COUNTS.map(() => [] as Awaited<ReturnType<typeof drain>>[]);
  for (let round = 0; round < RUNS; round++) {
    const order = round % 2 === 0 ? [...COUNTS.keys()] : [...COUNTS.keys()].reverse();
    for (const i of order) results[i]!.push(await drain(redis, COUNTS[i]!, N, `r${round}p${COUNTS[i]}:`));
  }
  console.table(
    COUNTS.map((p, i) => ({
      partitions: p,
      "jobs/s (median)": Math.round(median(results[i]!.map((r) => r.jobsPerSec))),
      "round trips/job": median(results[i]!.map((r) => r.tripsPerJob)).toFixed(4),
      "script µs/job": median(results[i]!.map((r) => r.usecPerJob)).toFixed(2),
    })),
  );
} finally {
  redis.disconnect();
  await server.stop();
}
