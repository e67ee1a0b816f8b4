// What cancel costs and how soon it reaches a handler (docs/guides/cancel.md).
// 1. The drain of no-op jobs never cancelled, by this tree and, with
//    --compare, by another checkout of tickq (its src/index.ts), alternating
//    round by round (which goes first alternates too) on a private Redis, so
//    load moves both alike: the cost the cancel check adds to every job.
// 2. How long a running handler waits for its signal to abort after
//    tq.jobs.cancel is called, and how long cancel takes to return, for a
//    few cancelCheckMs, one tick with one long job at a time.
//   npx tsx bench/cancel.ts --jobs 20000 --runs 6 --samples 10 [--compare /tmp/tickq-main/src/index.ts]
import { parseArgs } from "node:util";
import type { Redis } from "ioredis";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import type { JobContext } from "../src/job/context.js";
import { alternate, type Build, builds, median, onPrivateRedis } from "./alternating.js";
import { enqueueInChunks, tickUntil } from "./noops.js";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "20000" },
    runs: { type: "string", default: "6" },
    samples: { type: "string", default: "10" },
    compare: { type: "string" },
  },
});
const N = Number(values.jobs);
const RUNS = Number(values.runs);
const SAMPLES = Number(values.samples);
const trees = await builds(values.compare);
const here = trees[0]!.build;

/** One drain of `n` no-op jobs never cancelled, in jobs/s. */
async function drainRate(redis: Redis, build: Build, n: number, round: number): Promise<number> {
  const tq = build.createTickq({
    redis: ioredisAdapter(redis),
    prefix: `bench-cancel:${round}:`,
    jobs: { noop: () => {} },
  });
  await enqueueInChunks(
    (jobs) => tq.enqueueBulk(jobs),
    n,
    () => ({ name: "noop" as const, args: [] as [] }),
  );
  const started = performance.now();
  await tickUntil(tq, n, { batch: 100 });
  const rate = Math.round(n / ((performance.now() - started) / 1000));
  await redis.flushdb();
  return rate;
}

await onPrivateRedis(async (redis, url) => {
  console.log(`private Redis ${url}; ${N} no-op jobs per drain, batch 100, concurrency 100, ${RUNS} rounds`);
  const rates = await alternate({
    variants: trees,
    rounds: RUNS,
    jobs: N,
    drain: (tree, n, round) => drainRate(redis, tree.build, n, round),
  });
  for (const [tree, xs] of rates) console.log(`drain, ${tree.label}: median ${median(xs)} jobs/s (${xs.join(", ")})`);
  if (trees[1]) {
    const mine = rates.get(trees[0]!)!;
    const ratios = rates.get(trees[1])!.map((b, i) => +(mine[i]! / b).toFixed(2));
    console.log(`  this / --compare, per round: ${ratios.join(" ")}; median ${median(ratios)}`);
  }

  for (const cancelCheckMs of [250, 750]) {
    const aborts: number[] = [];
    const returns: number[] = [];
    for (let s = 0; s < SAMPLES; s++) {
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      let abortedAt = 0;
      const tq = here.createTickq({
        redis: ioredisAdapter(redis),
        prefix: "bench-cancel:latency:",
        jobs: {
          long: (_args: [], ctx: JobContext) =>
            new Promise<void>((resolve) => {
              started();
              ctx.signal.addEventListener("abort", () => ((abortedAt = performance.now()), resolve()));
            }),
        },
      });
      const jid = await tq.enqueue("long", []);
      const ticking = tq.tick({ budgetMs: 30_000, cancelCheckMs });
      await running;
      // A random moment within the cadence: the wait depends on where in it the cancel lands.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * cancelCheckMs));
      const sent = performance.now();
      await tq.jobs.cancel(jid);
      returns.push(performance.now() - sent);
      await ticking;
      aborts.push(abortedAt - sent);
      await redis.flushdb();
    }
    const show = (xs: number[]) => `median ${Math.round(median(xs))} ms, max ${Math.round(Math.max(...xs))} ms`;
    console.log(
      `cancel of a running job, cancelCheckMs ${cancelCheckMs}: signal aborted ${show(aborts)}; cancel returned ${show(returns)} (${SAMPLES} samples)`,
    );
  }
});
