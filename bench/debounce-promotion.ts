// What closing debounce windows at promotion costs plain jobs
// (docs/guides/delayed.md#debounce): N plain delayed jobs, due at once, are
// promoted and drained by this tree and, with --compare, by another checkout
// of tickq (its src/index.ts), alternating round by round on a private Redis
// so load moves both alike. Redis script µs per job is the figure: less moved
// by other processes than wall time.
//   npx tsx bench/debounce-promotion.ts --jobs 20000 --runs 5 [--compare /tmp/tickq-main/src/index.ts]
import { parseArgs } from "node:util";
import type { Redis } from "ioredis";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { alternate, type Build, builds, median, onPrivateRedis, percentOf, spread } from "./alternating.js";
import { enqueueInChunks, measuredDrain } from "./noops.js";

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
const trees = await builds(values.compare);

async function drainDelayed(redis: Redis, build: Build, n: number, prefix: string) {
  const tq = build.createTickq({
    redis: ioredisAdapter(redis),
    prefix,
    jobs: { noop: (_args: [number]) => {} },
    logger: { info() {}, warn: console.warn, error: console.error },
  });
  await enqueueInChunks(
    (jobs) => tq.enqueueBulk(jobs),
    n,
    (i: number) => ({ name: "noop" as const, args: [i] as [number], delayMs: 1 }),
  );
  await new Promise((r) => setTimeout(r, 5)); // all of them due
  const { usecPerJob } = await measuredDrain(redis, tq, n, {
    batch: BATCH,
    stalled: async (r) => r.fetched === 0 && (await redis.zcard(`${prefix}schedule`)) === 0,
  });
  return usecPerJob;
}

await onPrivateRedis(async (redis, url) => {
  console.log(`private Redis ${url}; ${N} plain delayed jobs per drain, batch ${BATCH}, ${RUNS} rounds, alternating`);
  const usecs = await alternate({
    variants: trees,
    rounds: RUNS,
    jobs: N,
    drain: (tree, n, round) => drainDelayed(redis, tree.build, n, `r${round}:${trees.indexOf(tree)}:`),
  });
  const base = median(usecs.get(trees[0]!)!);
  console.table(
    trees.map((tree) => {
      const xs = usecs.get(tree)!;
      return {
        tree: tree.label,
        "Redis script µs/job (median)": median(xs).toFixed(2),
        "min–max": spread(xs, 2),
        "vs this tree": percentOf(median(xs), base, 1),
      };
    }),
  );
});
