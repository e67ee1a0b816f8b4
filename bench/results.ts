// What results cost (docs/guides/results.md): the drain of no-op jobs with
// and without keepCompleted, with and without a return value, interleaved
// round by round on a private Redis so load moves every variant alike; and
// Redis memory per succeeded job kept.
//   npx tsx bench/results.ts --jobs 20000 --runs 5 --kept 20000
import { parseArgs } from "node:util";
import type { Redis } from "ioredis";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { createTickq, type KeepCompleted } from "../src/index.js";
import { onPrivateRedis, printAgainstPlain } from "./alternating.js";
import { enqueueInChunks, measuredDrain, type RateAndScript, tickUntil } from "./noops.js";

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

const noop = (i: number) => ({ name: "noop" as const, args: [i] as [number] });

async function drainRate(redis: Redis, v: Variant, n: number, round: number): Promise<RateAndScript> {
  const tq = tickqFor(redis, `bench-results:${round}:${VARIANTS.indexOf(v)}:`, v);
  await enqueueInChunks((jobs) => tq.enqueueBulk(jobs), n, noop);
  return measuredDrain(redis, tq, n, { batch: BATCH });
}

async function bytesPerKept(redis: Redis, v: Variant, n: number): Promise<number> {
  await redis.flushdb();
  const tq = tickqFor(redis, "bench-results:memory:", { ...v, keep: { count: n } });
  await enqueueInChunks((jobs) => tq.enqueueBulk(jobs), n, noop);
  const used = async () => Number(/used_memory:(\d+)/.exec(await redis.info("memory"))?.[1]);
  // Drained once without history first: what stays (stats, the tick's lease) is not counted per kept job.
  const before = await used();
  await tickUntil(tq, n, { batch: BATCH });
  const kept = await redis.zcard("bench-results:memory:succeeded");
  if (kept !== n) throw new Error(`kept ${kept} of ${n}`);
  // The queue's memory is freed as the history grows: compare with a queue of the same jobs.
  const queued = await used();
  await redis.flushdb();
  await enqueueInChunks((jobs) => tq.enqueueBulk(jobs), n, noop);
  const emptyBefore = await used();
  await redis.del("bench-results:memory:queue:default");
  const queueBytes = emptyBefore - (await used());
  await redis.flushdb();
  return (queued - before + queueBytes) / n;
}

await onPrivateRedis(async (redis, url) => {
  const drain = (v: Variant, n: number, round: number) => drainRate(redis, v, n, round);
  await printAgainstPlain(url, BATCH, { variants: VARIANTS, rounds: RUNS, jobs: N, drain });
  console.log(`\nRedis memory per succeeded job kept (${KEPT} kept, args [n]):`);
  console.table([
    {
      result: "none (returns nothing)",
      "bytes per kept job": Math.round(await bytesPerKept(redis, VARIANTS[2]!, KEPT)),
    },
    { result: JSON.stringify(RESULT), "bytes per kept job": Math.round(await bytesPerKept(redis, VARIANTS[3]!, KEPT)) },
  ]);
});
