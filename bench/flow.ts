// The flow-control part of `npm run bench` (also alone: npx tsx bench/flow.ts
// [-- --jobs 20000 --duplicates 10000 --plain 1000 --runs 3]). Ticks of
// batch 100 drain no-op jobs on the bench Redis, in one process:
//   (a) overhead  N plain jobs, then N jobs each while-executing on a key of
//                 its own (a slot taken at fetch, freed at ack): jobs/s of
//                 each, and the ratio (target ≥ 70 %)
//   (b) busy key  another tick holds a key (its job hangs until the end);
//                 D duplicates of that key wait in the queue in front of P
//                 plain jobs: the plain jobs' drain rate (from the first tick
//                 to the last plain job done) against the same P plain jobs
//                 with nothing in front (target ≥ 50 %). "cold": the
//                 duplicates sit in the queue, so the drain first sets them
//                 aside; "parked": a first drain already did, and the
//                 figure is what every later fetch pays for them
// Each scenario runs `runs` times, alternating with its baseline (the busy
// key's, twice as many: a run drains only P jobs); medians.
import { Redis } from "ioredis";
import { ioredisAdapter } from "../adapters/ioredis.js";
import { createTickq } from "../src/index.js";

export interface FlowBenchOptions {
  redisUrl: string;
  jobs: number;
  duplicates: number;
  plain: number;
  runs: number;
  batch: number;
}

export interface FlowFigures {
  plain: number[];
  exclusive: number[];
  alone: number[];
  cold: number[];
  parked: number[];
}

const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** One world under a fresh prefix: its tickq, a counter of finished plain jobs, and a way to hold the key "busy". */
function world(redis: Redis, label: string) {
  const prefix = `bench:flow-${label}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}:`;
  let done = 0;
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const jobs = {
    noop: () => void done++,
    exclusive: { perform: ([key]: [string]) => (key === "busy" ? released : void done++), uniqueKey: ([key]: [string]) => key },
  };
  const make = (queues: string[]) => createTickq({ redis: ioredisAdapter(redis), prefix, queues, jobs });
  return {
    tq: make(["default"]),
    holder: make(["hold"]),
    done: () => done,
    reset: () => void (done = 0),
    release,
    async clear() {
      release();
      const keys = await redis.keys(`${prefix}*`);
      for (let i = 0; i < keys.length; i += 1_000) await redis.del(...keys.slice(i, i + 1_000));
    },
  };
}

type World = ReturnType<typeof world>;

/** Ticks back to back until `n` counted jobs finished; ms taken. */
async function drain(w: World, n: number, batch: number): Promise<number> {
  w.reset();
  const t = performance.now();
  while (w.done() < n) {
    const report = await w.tq.tick({ batch, concurrency: batch, budgetMs: 60_000 });
    if (report.fetched === 0 && !report.more && w.done() < n) throw new Error(`flow bench: drained ${w.done()} of ${n}`);
  }
  return performance.now() - t;
}

async function enqueueChunked(w: World, jobs: Parameters<World["tq"]["enqueueBulk"]>[0]): Promise<void> {
  for (let i = 0; i < jobs.length; i += 1_000) await w.tq.enqueueBulk(jobs.slice(i, i + 1_000));
}

const plainJobs = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ name: "noop" as const, args: [from + i] }));
const exclusiveJobs = (n: number, key: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => ({ name: "exclusive" as const, args: [key(i)] as [string], unique: "while-executing" as const }));

/** (a): plain no-ops, then no-ops each while-executing on a key of its own. */
async function overhead(redis: Redis, o: FlowBenchOptions, figures: FlowFigures): Promise<void> {
  const w = world(redis, "overhead");
  try {
    await enqueueChunked(w, plainJobs(o.jobs / 10)); // warm-up, unmeasured
    await drain(w, o.jobs / 10, o.batch);
    for (let run = 0; run < o.runs; run++) {
      await enqueueChunked(w, plainJobs(o.jobs));
      figures.plain.push(rate(o.jobs, await drain(w, o.jobs, o.batch)));
      await enqueueChunked(w, exclusiveJobs(o.jobs, (i) => `k-${run}-${i}`));
      figures.exclusive.push(rate(o.jobs, await drain(w, o.jobs, o.batch)));
    }
  } finally {
    await w.clear();
  }
}

/**
 * (b), in one world a run (warm first): P plain jobs alone; then, a key held
 * by another tick, P plain jobs behind D duplicates of it (cold); then P
 * more, the duplicates now parked.
 */
async function busyKey(redis: Redis, o: FlowBenchOptions, figures: FlowFigures): Promise<void> {
  for (let run = 0; run < o.runs; run++) {
    const w = world(redis, "busy");
    try {
      await enqueueChunked(w, plainJobs(o.plain)); // warm-up, unmeasured
      await drain(w, o.plain, o.batch);
      await enqueueChunked(w, plainJobs(o.plain));
      figures.alone.push(rate(o.plain, await drain(w, o.plain, o.batch)));
      await w.holder.enqueue("exclusive", ["busy"], { queue: "hold", unique: "while-executing" });
      const holding = w.holder.tick({ batch: 1, concurrency: 1, budgetMs: 120_000, leaseMs: 30_000 });
      while ((await w.holder.stats()).inflight === 0) await new Promise((r) => setTimeout(r, 5));
      await enqueueChunked(w, exclusiveJobs(o.duplicates, () => "busy"));
      await enqueueChunked(w, plainJobs(o.plain));
      figures.cold.push(rate(o.plain, await drain(w, o.plain, o.batch)));
      await enqueueChunked(w, plainJobs(o.plain));
      figures.parked.push(rate(o.plain, await drain(w, o.plain, o.batch)));
      w.release();
      await holding;
    } finally {
      await w.clear();
    }
  }
}

export async function measureFlow(o: FlowBenchOptions): Promise<FlowFigures> {
  const redis = new Redis(o.redisUrl);
  const figures: FlowFigures = { plain: [], exclusive: [], alone: [], cold: [], parked: [] };
  try {
    await overhead(redis, o, figures);
    await busyKey(redis, { ...o, runs: o.runs * 2 }, figures);
  } finally {
    redis.disconnect();
  }
  return figures;
}

export function printFlow(o: FlowBenchOptions, f: FlowFigures): void {
  const pct = (a: number[], b: number[]) => `${Math.round((median(a) / median(b)) * 100)} %`;
  const span = (xs: number[]) => `${Math.min(...xs)}–${Math.max(...xs)}`;
  console.log(`\nFlow control (batch ${o.batch}; ${o.runs} runs of (a), ${o.runs * 2} of (b); medians; no-op jobs):`);
  console.table([
    { scenario: `(a) ${o.jobs} plain jobs`, "jobs/s": median(f.plain), "min–max": span(f.plain), "vs baseline": "baseline" },
    { scenario: `(a) ${o.jobs} while-executing, distinct keys`, "jobs/s": median(f.exclusive), "min–max": span(f.exclusive), "vs baseline": pct(f.exclusive, f.plain) },
    { scenario: `(b) ${o.plain} plain jobs alone`, "jobs/s": median(f.alone), "min–max": span(f.alone), "vs baseline": "baseline" },
    { scenario: `(b) ${o.plain} plain behind ${o.duplicates} duplicates of a busy key (cold)`, "jobs/s": median(f.cold), "min–max": span(f.cold), "vs baseline": pct(f.cold, f.alone) },
    { scenario: `(b) ${o.plain} plain, the ${o.duplicates} duplicates parked`, "jobs/s": median(f.parked), "min–max": span(f.parked), "vs baseline": pct(f.parked, f.alone) },
  ]);
  console.log(`(a) while-executing / plain: ${pct(f.exclusive, f.plain)} (target ≥ 70 %)`);
  console.log(`(b) plain behind a busy key's duplicates / alone: ${pct(f.cold, f.alone)} cold, ${pct(f.parked, f.alone)} parked (target ≥ 50 %)`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { parseArgs } = await import("node:util");
  const { findRedis } = await import("../functions/node/find-redis.js");
  const { values } = parseArgs({
    options: {
      jobs: { type: "string", default: "20000" },
      duplicates: { type: "string", default: "10000" },
      plain: { type: "string", default: "1000" },
      runs: { type: "string", default: "3" },
      batch: { type: "string", default: "100" },
    },
  });
  const found = await findRedis();
  const o = { redisUrl: found.url, jobs: Number(values.jobs), duplicates: Number(values.duplicates), plain: Number(values.plain), runs: Number(values.runs), batch: Number(values.batch) };
  printFlow(o, await measureFlow(o));
  await found.stop();
  process.exit(0);
}
