// What expiry costs (docs/guides/jobs.md#expiry): the drain of no-op jobs
// without an expiry, with one that never passes, and with half of them
// expired (recorded, never run), interleaved round by round on a private
// Redis so load moves every variant alike; with --compare, plain jobs are
// also drained by another checkout of tickq (its src/index.ts), alternating
// with this one: the cost the expiry check adds to jobs without one. Then
// Redis memory per expired job kept.
//   npx tsx bench/expiry.ts --jobs 20000 --runs 5 --kept 20000 [--compare /tmp/tickq-main/src/index.ts]
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import * as here from "../src/index.js";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "20000" },
    runs: { type: "string", default: "5" },
    kept: { type: "string", default: "20000" },
    batch: { type: "string", default: "100" },
    compare: { type: "string" },
  },
});
const N = Number(values.jobs);
const RUNS = Number(values.runs);
const KEPT = Number(values.kept);
const BATCH = Number(values.batch);
type Build = Pick<typeof here, "createTickq">;
const other: Build | undefined = values.compare ? ((await import(values.compare)) as Build) : undefined;

interface Variant {
  label: string;
  build: Build;
  /** expiresInMs of each job (undefined: none), by its number. */
  expiry: (k: number) => number | undefined;
}

const VARIANTS: Variant[] = [
  { label: "plain (this tree)", build: here, expiry: () => undefined },
  ...(other ? [{ label: "plain (--compare tree)", build: other, expiry: () => undefined }] : []),
  { label: "expiresInMs 1 h (none expire)", build: here, expiry: () => 3_600_000 },
  { label: "half expired (1 ms)", build: here, expiry: (k: number) => (k % 2 === 0 ? 1 : undefined) },
];

function tickqFor(redis: Redis, prefix: string, build: Build, deadMaxJobs?: number) {
  return build.createTickq({
    redis: ioredisAdapter(redis),
    prefix,
    ...(deadMaxJobs ? { deadMaxJobs } : {}),
    jobs: { noop: (_args: [number]) => {} },
    logger: { info() {}, warn: console.warn, error: console.error },
  });
}

/** Microseconds Redis spent in scripts so far (INFO commandstats): less moved by other processes than wall time. */
async function scriptUsec(redis: Redis): Promise<number> {
  const info = await redis.info("commandstats");
  let total = 0;
  for (const m of info.matchAll(/^cmdstat_(?:evalsha|eval):calls=\d+,usec=(\d+)/gm)) total += Number(m[1]);
  return total;
}

async function fill(tq: ReturnType<typeof tickqFor>, n: number, expiry: Variant["expiry"]): Promise<void> {
  for (let i = 0; i < n; i += 1_000) {
    const jobs = Array.from({ length: Math.min(1_000, n - i) }, (_, k) => {
      const expiresInMs = expiry(i + k);
      return { name: "noop" as const, args: [i + k] as [number], ...(expiresInMs ? { expiresInMs } : {}) };
    });
    await tq.enqueueBulk(jobs);
  }
}

async function drainRate(redis: Redis, v: Variant, n: number, round: number) {
  const tq = tickqFor(redis, `bench-expiry:${round}:${VARIANTS.indexOf(v)}:`, v.build);
  await fill(tq, n, v.expiry);
  await new Promise((r) => setTimeout(r, 5));
  const usecBefore = await scriptUsec(redis);
  const start = performance.now();
  let taken = 0;
  while (taken < n) {
    const report = await tq.tick({ batch: BATCH, concurrency: BATCH, budgetMs: 60_000 });
    taken += report.succeeded + (report.expired ?? 0);
    if (report.fetched === 0 && !report.expired) throw new Error(`drained only ${taken} of ${n}`);
  }
  const rate = n / ((performance.now() - start) / 1000);
  const usecPerJob = ((await scriptUsec(redis)) - usecBefore) / n;
  await redis.flushdb();
  return { rate, usecPerJob };
}

/** Bytes of Redis memory per job waiting in its queue, and per job kept in the `expired` history. */
async function bytesPerExpired(redis: Redis, n: number): Promise<{ queuedPerJob: number; expiredPerJob: number }> {
  await redis.flushdb();
  const used = async () => Number(/used_memory:(\d+)/.exec(await redis.info("memory"))?.[1]);
  // The expired history is bounded like the dead set: room for all n.
  const tq = tickqFor(redis, "bench-expiry:memory:", here, n);
  const before = await used();
  await fill(tq, n, () => 1);
  const queued = await used();
  await new Promise((r) => setTimeout(r, 5));
  while ((await redis.llen("bench-expiry:memory:queue:default")) > 0) await tq.tick({ batch: 1_000, budgetMs: 60_000 });
  const kept = await redis.zcard("bench-expiry:memory:expired");
  if (kept !== n) throw new Error(`kept ${kept} of ${n}`);
  const after = await used();
  await redis.flushdb();
  // The tick's own keys (lease, registration) are a few hundred bytes in all: noise at this n.
  return { queuedPerJob: Math.round((queued - before) / n), expiredPerJob: Math.round((after - before) / n) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const server = await startPrivate();
const redis = new Redis(server.url);
try {
  console.log(
    `private Redis ${server.url}; ${N} no-op jobs per drain, batch ${BATCH}, ${RUNS} rounds, variants interleaved`,
  );
  const rates = new Map<Variant, number[]>(VARIANTS.map((v) => [v, []]));
  const usecs = new Map<Variant, number[]>(VARIANTS.map((v) => [v, []]));
  for (const v of VARIANTS) await drainRate(redis, v, Math.ceil(N / 10), -1); // warm-up
  for (let round = 0; round < RUNS; round++) {
    for (const v of round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
      const { rate, usecPerJob } = await drainRate(redis, v, N, round);
      rates.get(v)!.push(rate);
      usecs.get(v)!.push(usecPerJob);
    }
  }
  const plain = median(rates.get(VARIANTS[0]!)!);
  const plainUsec = median(usecs.get(VARIANTS[0]!)!);
  console.table(
    VARIANTS.map((v) => {
      const r = rates.get(v)!;
      return {
        variant: v.label,
        "drain jobs/s (median)": Math.round(median(r)),
        "min–max": `${Math.round(Math.min(...r))}–${Math.round(Math.max(...r))}`,
        "vs plain": `${((median(r) / plain) * 100).toFixed(1)} %`,
        "Redis script µs/job": median(usecs.get(v)!).toFixed(2),
        "µs vs plain": `${((median(usecs.get(v)!) / plainUsec) * 100).toFixed(0)} %`,
      };
    }),
  );
  console.log(`\nRedis memory per job (${KEPT} jobs, args [n]):`);
  console.table([await bytesPerExpired(redis, KEPT)]);
} finally {
  redis.disconnect();
  await server.stop();
}
