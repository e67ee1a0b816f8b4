// What expiry costs (docs/guides/jobs.md#expiry): the drain of no-op jobs
// without an expiry, with one that never passes, and with half of them
// expired (recorded, never run), interleaved round by round on a private
// Redis so load moves every variant alike; with --compare, plain jobs are
// also drained by another checkout of tickq (its src/index.ts), alternating
// with this one: the cost the expiry check adds to jobs without one. Then
// Redis memory per expired job kept.
//   npx tsx bench/expiry.ts --jobs 20000 --runs 5 --kept 20000 [--compare /tmp/tickq-main/src/index.ts]
import { parseArgs } from "node:util";
import type { Redis } from "ioredis";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { type Build, builds, onPrivateRedis, printAgainstPlain } from "./alternating.js";
import { enqueueInChunks, measuredDrain } from "./noops.js";

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
const trees = await builds(values.compare);
const here = trees[0]!.build;

interface Variant {
  label: string;
  build: Build;
  /** expiresInMs of each job (undefined: none), by its number. */
  expiry: (k: number) => number | undefined;
}

const VARIANTS: Variant[] = [
  ...trees.map(({ label, build }) => ({
    label: `plain (${label})`,
    build,
    expiry: () => undefined,
  })),
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

async function fill(tq: ReturnType<typeof tickqFor>, n: number, expiry: Variant["expiry"]): Promise<void> {
  await enqueueInChunks(
    (jobs) => tq.enqueueBulk(jobs),
    n,
    (i: number) => {
      const expiresInMs = expiry(i);
      return { name: "noop" as const, args: [i] as [number], ...(expiresInMs ? { expiresInMs } : {}) };
    },
  );
}

async function drainRate(redis: Redis, v: Variant, n: number, round: number) {
  const tq = tickqFor(redis, `bench-expiry:${round}:${VARIANTS.indexOf(v)}:`, v.build);
  await fill(tq, n, v.expiry);
  await new Promise((r) => setTimeout(r, 5)); // the 1 ms expiries pass
  return measuredDrain(redis, tq, n, {
    batch: BATCH,
    counted: (r) => r.succeeded + (r.expired ?? 0),
    stalled: (r) => r.fetched === 0 && !r.expired,
  });
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

await onPrivateRedis(async (redis, url) => {
  const drain = (v: Variant, n: number, round: number) => drainRate(redis, v, n, round);
  await printAgainstPlain(url, BATCH, { variants: VARIANTS, rounds: RUNS, jobs: N, drain });
  console.log(`\nRedis memory per job (${KEPT} jobs, args [n]):`);
  console.table([await bytesPerExpired(redis, KEPT)]);
});
