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
import { Redis } from "ioredis";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import * as here from "../src/index.js";
import type { JobContext } from "../src/types.js";

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
type Build = Pick<typeof here, "createTickq">;
const other: Build | undefined = values.compare ? ((await import(values.compare)) as Build) : undefined;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const server = await startPrivate();
const redis = new Redis(server.url);
try {
  console.log(`private Redis ${server.url}; ${N} no-op jobs per drain, batch 100, concurrency 100, ${RUNS} rounds`);
  const builds: [string, Build][] = [
    ["this tree", here],
    ...(other ? [["--compare tree", other] as [string, Build]] : []),
  ];
  const rates = new Map<string, number[]>(builds.map(([label]) => [label, []]));
  for (let round = 0; round < RUNS; round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const [label, build] of order) {
      const tq = build.createTickq({
        redis: ioredisAdapter(redis),
        prefix: `bench-cancel:${round}:`,
        jobs: { noop: () => {} },
      });
      await tq.enqueueBulk(Array.from({ length: N }, () => ({ name: "noop" as const, args: [] as [] })));
      const started = performance.now();
      for (let done = 0; done < N; )
        done += (await tq.tick({ batch: 100, concurrency: 100, budgetMs: 60_000 })).succeeded;
      rates.get(label)!.push(Math.round(N / ((performance.now() - started) / 1000)));
      await redis.flushdb();
    }
  }
  for (const [label, xs] of rates) console.log(`drain, ${label}: median ${median(xs)} jobs/s (${xs.join(", ")})`);
  if (other) {
    const mine = rates.get("this tree")!;
    const ratios = rates.get("--compare tree")!.map((b, i) => +(mine[i]! / b).toFixed(2));
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
} finally {
  redis.disconnect();
  await server.stop();
}
