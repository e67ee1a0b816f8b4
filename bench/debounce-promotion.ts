// What closing debounce windows at promotion costs plain jobs
// (docs/guides/delayed.md#debounce): N plain delayed jobs, due at once, are
// promoted and drained by this tree and, with --compare, by another checkout
// of tickq (its src/index.ts), alternating round by round on a private Redis
// so load moves both alike. Redis script µs per job is the figure: less moved
// by other processes than wall time.
//   npx tsx bench/debounce-promotion.ts --jobs 20000 --runs 5 [--compare /tmp/tickq-main/src/index.ts]
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import * as here from "../src/index.js";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "20000" },
    runs: { type: "string", default: "5" },
    batch: { type: "string", default: "100" },
    compare: { type: "string" },
  },
});
const N = Number(values.jobs);
const RUNS = Number(values.runs);
const BATCH = Number(values.batch);
type Build = Pick<typeof here, "createTickq">;
const builds: { label: string; build: Build }[] = [{ label: "this tree", build: here }];
if (values.compare) builds.push({ label: "--compare tree", build: (await import(values.compare)) as Build });

async function scriptUsec(redis: Redis): Promise<number> {
  const info = await redis.info("commandstats");
  let total = 0;
  for (const m of info.matchAll(/^cmdstat_(?:evalsha|eval):calls=\d+,usec=(\d+)/gm)) total += Number(m[1]);
  return total;
}

async function drainDelayed(redis: Redis, build: Build, n: number, prefix: string) {
  const tq = build.createTickq({
    redis: ioredisAdapter(redis),
    prefix,
    jobs: { noop: (_args: [number]) => {} },
    logger: { info() {}, warn: console.warn, error: console.error },
  });
  for (let i = 0; i < n; i += 1_000) {
    const count = Math.min(1_000, n - i);
    await tq.enqueueBulk(
      Array.from({ length: count }, (_, k) => ({ name: "noop" as const, args: [i + k] as [number], delayMs: 1 })),
    );
  }
  await new Promise((r) => setTimeout(r, 5));
  const usecBefore = await scriptUsec(redis);
  let taken = 0;
  while (taken < n) {
    const report = await tq.tick({ batch: BATCH, concurrency: BATCH, budgetMs: 60_000 });
    taken += report.succeeded;
    if (report.fetched === 0 && (await redis.zcard(`${prefix}schedule`)) === 0)
      throw new Error(`drained ${taken} of ${n}`);
  }
  const usecPerJob = ((await scriptUsec(redis)) - usecBefore) / n;
  await redis.flushdb();
  return usecPerJob;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const server = await startPrivate();
const redis = new Redis(server.url);
try {
  console.log(
    `private Redis ${server.url}; ${N} plain delayed jobs per drain, batch ${BATCH}, ${RUNS} rounds, alternating`,
  );
  const usecs = builds.map(() => [] as number[]);
  for (const [i, b] of builds.entries()) await drainDelayed(redis, b.build, Math.ceil(N / 10), `warm:${i}:`);
  for (let round = 0; round < RUNS; round++) {
    const order = round % 2 === 0 ? [...builds.keys()] : [...builds.keys()].reverse();
    for (const i of order) usecs[i]!.push(await drainDelayed(redis, builds[i]!.build, N, `r${round}:${i}:`));
  }
  const base = median(usecs[0]!);
  console.table(
    builds.map((b, i) => ({
      tree: b.label,
      "Redis script µs/job (median)": median(usecs[i]!).toFixed(2),
      "min–max": `${Math.min(...usecs[i]!).toFixed(2)}–${Math.max(...usecs[i]!).toFixed(2)}`,
      "vs this tree": `${((median(usecs[i]!) / base) * 100).toFixed(1)} %`,
    })),
  );
} finally {
  redis.disconnect();
  await server.stop();
}
