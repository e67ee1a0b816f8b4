// What results cost (docs/guides/results.md): the drain of no-op jobs with
// and without keepCompleted, with and without a return value, interleaved
// round by round on a private Redis so load moves every variant alike; and
// Redis memory per succeeded job kept.
//   npx tsx bench/results.ts --jobs 20000 --runs 5 --kept 20000
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { createTickq, type KeepCompleted } from "../src/index.js";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "20000" },
    runs: { type: "string", default: "5" },
    kept: { type: "string", default: "20000" },
    batch: { type: "string", default: "100" },
  },
});
const N = Number(values.jobs);
const RUNS = Number(values.runs);
const KEPT = Number(values.kept);
const BATCH = Number(values.batch);
const RESULT = { width: 640, height: 480, url: "https://cdn.example.com/i/3f2a9c.jpg" };

interface Variant {
  label: string;
  keep: KeepCompleted | 0;
  returns: boolean;
}

const VARIANTS: Variant[] = [
  { label: "keepCompleted 0, returns nothing (plain)", keep: 0, returns: false },
  { label: "keepCompleted 0, returns a value", keep: 0, returns: true },
  { label: "keepCompleted 1,000, returns nothing", keep: { count: 1_000 }, returns: false },
  { label: "keepCompleted 1,000, returns a value", keep: { count: 1_000 }, returns: true },
];

function tickqFor(redis: Redis, prefix: string, v: Variant) {
  const jobs = { noop: (_args: [number]) => (v.returns ? RESULT : undefined) };
  return createTickq({
    redis: ioredisAdapter(redis),
    prefix,
    jobs,
    keepCompleted: v.keep,
    logger: { info() {}, warn: console.warn, error: console.error },
  });
}

/** Microseconds Redis spent in scripts so far (INFO commandstats): less moved by the load of other processes than wall time. */
async function scriptUsec(redis: Redis): Promise<number> {
  const info = await redis.info("commandstats");
  let total = 0;
  for (const m of info.matchAll(/^cmdstat_(?:evalsha|eval):calls=\d+,usec=(\d+)/gm)) total += Number(m[1]);
  return total;
}

async function drainRate(
  redis: Redis,
  v: Variant,
  n: number,
  round: number,
): Promise<{ rate: number; usecPerJob: number }> {
  const prefix = `bench-results:${round}:${VARIANTS.indexOf(v)}:`;
  const tq = tickqFor(redis, prefix, v);
  for (let i = 0; i < n; i += 1_000) {
    await tq.enqueueBulk(
      Array.from({ length: Math.min(1_000, n - i) }, (_, k) => ({ name: "noop" as const, args: [i + k] as [number] })),
    );
  }
  const usecBefore = await scriptUsec(redis);
  const start = performance.now();
  let done = 0;
  while (done < n) {
    const report = await tq.tick({ batch: BATCH, concurrency: BATCH, budgetMs: 60_000 });
    done += report.succeeded;
    if (report.fetched === 0) throw new Error(`drained only ${done} of ${n}`);
  }
  const rate = n / ((performance.now() - start) / 1000);
  const usecPerJob = ((await scriptUsec(redis)) - usecBefore) / n;
  await redis.flushdb();
  return { rate, usecPerJob };
}

async function bytesPerKept(redis: Redis, v: Variant, n: number): Promise<number> {
  await redis.flushdb();
  const tq = tickqFor(redis, "bench-results:memory:", { ...v, keep: { count: n } });
  for (let i = 0; i < n; i += 1_000) {
    await tq.enqueueBulk(
      Array.from({ length: Math.min(1_000, n - i) }, (_, k) => ({ name: "noop" as const, args: [i + k] as [number] })),
    );
  }
  const used = async () => Number(/used_memory:(\d+)/.exec(await redis.info("memory"))?.[1]);
  // Drained once without history first: what stays (stats, the tick's lease) is not counted per kept job.
  let done = 0;
  const before = await used();
  while (done < n) done += (await tq.tick({ batch: BATCH, concurrency: BATCH, budgetMs: 60_000 })).succeeded;
  const kept = await redis.zcard("bench-results:memory:succeeded");
  if (kept !== n) throw new Error(`kept ${kept} of ${n}`);
  // The queue's memory is freed as the history grows: compare with a queue of the same jobs.
  const queued = await used();
  await redis.flushdb();
  for (let i = 0; i < n; i += 1_000) {
    await tq.enqueueBulk(
      Array.from({ length: Math.min(1_000, n - i) }, (_, k) => ({ name: "noop" as const, args: [i + k] as [number] })),
    );
  }
  const emptyBefore = await used();
  await redis.del("bench-results:memory:queue:default");
  const queueBytes = emptyBefore - (await used());
  await redis.flushdb();
  return (queued - before + queueBytes) / n;
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
  console.log(`\nRedis memory per succeeded job kept (${KEPT} kept, args [n]):`);
  console.table([
    {
      result: "none (returns nothing)",
      "bytes per kept job": Math.round(await bytesPerKept(redis, VARIANTS[2]!, KEPT)),
    },
    { result: JSON.stringify(RESULT), "bytes per kept job": Math.round(await bytesPerKept(redis, VARIANTS[3]!, KEPT)) },
  ]);
} finally {
  redis.disconnect();
  await server.stop();
}
