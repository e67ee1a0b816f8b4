// The flow-control part of `npm run bench` (also alone: npx tsx bench/flow.ts
// [-- --jobs 20000 --duplicates 10000 --plain 1000 --runs 3]). Ticks of
// batch 100 drain no-op jobs, in one process, on a private redis-server (so
// `INFO commandstats` counts this bench's commands alone: Redis commands a
// job, scripts' included, is the figure the machine's load does not move):
//   (a) overhead  N plain jobs, then N of the same jobs (name, args of the
//                 same size) each while-executing on a key of its own (a
//                 slot taken at fetch, freed at ack): jobs/s of each, and
//                 the ratio (target ≥ 70 %); only `unique` differs
//   (b) busy key  another tick holds a key (its job hangs until the end);
//                 D duplicates of that key wait in front of P plain jobs:
//                 the plain jobs' drain rate (from the first tick to the
//                 last plain job done) against the same P plain jobs with
//                 nothing in front (target ≥ 50 %). "enqueued": the
//                 duplicates were enqueued before the key was taken, while
//                 its first job waited in a queue, so enqueue parked them
//                 behind it; "cold": as many more were pushed straight into
//                 the queue (the door of jobs an older tickq queued, or a
//                 client writing the queue itself), so the drain parks them
//                 first (its commands count against the P jobs); "parked":
//                 P more after that, what every later fetch pays for them
// Each scenario runs `runs` times, alternating with its baseline (the busy
// key's, twice as many: a run drains only P jobs); medians.
import { Redis } from "ioredis";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { createTickq } from "../src/index.js";
import type { RedisAdapter } from "../src/redis/types.js";
import { printFlow } from "./flow-table.js";
import type { FlowBenchOptions, FlowFigures, Scenario } from "./flow-types.js";

export type { FlowBenchOptions, FlowFigures, Scenario } from "./flow-types.js";

/** Commands Redis ran (scripts' included), µs it spent in scripts (EVAL, EVALSHA: their commands included), and its process' CPU µs. */
async function redisWork(redis: Redis): Promise<{ calls: number; scriptUs: number; cpuUs: number }> {
  const info = await redis.info("commandstats");
  let calls = 0;
  let scriptUs = 0;
  for (const [, name, n, us] of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    calls += Number(n);
    if (name === "eval" || name === "evalsha") scriptUs += Number(us);
  }
  const cpu = await redis.info("cpu");
  const seconds = (field: string) => Number(new RegExp(`^${field}:([\\d.]+)`, "m").exec(cpu)?.[1] ?? Number.NaN);
  return { calls, scriptUs, cpuUs: (seconds("used_cpu_user") + seconds("used_cpu_sys")) * 1e6 };
}

/** The adapter with a count of its calls: each is one round trip to Redis. */
function counted(adapter: RedisAdapter): RedisAdapter & { calls: () => number } {
  let calls = 0;
  return {
    evalsha: (sha, keys, args) => (calls++, adapter.evalsha(sha, keys, args)),
    eval: (script, keys, args) => (calls++, adapter.eval(script, keys, args)),
    calls: () => calls,
  };
}

const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);

/** One world under a fresh prefix: its tickq, a counter of finished plain jobs, and a way to hold the key "busy". */
function world(redis: Redis, label: string) {
  const prefix = `bench:flow-${label}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}:`;
  let done = 0;
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const jobs = {
    noop: () => void done++,
    exclusive: {
      perform: ([key]: [string]) => (key === "busy" ? released : void done++),
      uniqueKey: ([key]: [string]) => key,
    },
  };
  const measured = counted(ioredisAdapter(redis));
  const make = (queues: string[], adapter: RedisAdapter) => createTickq({ redis: adapter, prefix, queues, jobs });
  return {
    prefix,
    tq: make(["default"], measured),
    roundTrips: measured.calls,
    holder: make(["hold"], ioredisAdapter(redis)),
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
  // A tick whose fetches only parked jobs may end early with nothing run: tick again, up to a bound.
  for (let idle = 0; w.done() < n; ) {
    const report = await w.tq.tick({ batch, concurrency: batch, budgetMs: 60_000 });
    idle = report.fetched === 0 ? idle + 1 : 0;
    if (idle > 100) throw new Error(`flow bench: drained ${w.done()} of ${n}`);
  }
  return performance.now() - t;
}

/** Drains n jobs into `figures[scenario]` (jobs/s, script and CPU µs a job); the first time, counts Redis commands and round trips a job too. */
async function measured(
  redis: Redis,
  w: World,
  n: number,
  batch: number,
  figures: FlowFigures,
  scenario: Scenario,
): Promise<void> {
  const before = await redisWork(redis);
  const tripsBefore = w.roundTrips();
  figures[scenario].push(rate(n, await drain(w, n, batch)));
  const trips = w.roundTrips() - tripsBefore;
  const after = await redisWork(redis);
  // less the INFO commands that read the counters (two a read)
  figures.commands[scenario] ??= (after.calls - before.calls - 2) / n;
  figures.roundTrips[scenario] ??= trips / n;
  figures.scriptUs[scenario].push((after.scriptUs - before.scriptUs) / n);
  figures.cpuUs[scenario].push((after.cpuUs - before.cpuUs) / n);
}

async function enqueueChunked(w: World, jobs: Parameters<World["tq"]["enqueueBulk"]>[0]): Promise<void> {
  for (let i = 0; i < jobs.length; i += 1_000) await w.tq.enqueueBulk(jobs.slice(i, i + 1_000));
}

const plainJobs = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ name: "noop" as const, args: [from + i] }));
const exclusiveJobs = (n: number, key: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => ({
    name: "exclusive" as const,
    args: [key(i)] as [string],
    unique: "while-executing" as const,
  }));
/** The same jobs enqueued without `unique`: plain jobs, the baseline of (a). */
const unflowed = (n: number, key: (i: number) => string) => exclusiveJobs(n, key).map(({ unique: _, ...job }) => job);

/** (a): no-ops, plain; then the same no-ops each while-executing on a key of its own. */
export async function overhead(redis: Redis, o: FlowBenchOptions, figures: FlowFigures): Promise<void> {
  const w = world(redis, "overhead");
  try {
    // Warm-up of both kinds, unmeasured: the first drain of each pays for compiling its code paths.
    await enqueueChunked(
      w,
      unflowed(o.jobs / 10, (i) => `warm-${i}`),
    );
    await drain(w, o.jobs / 10, o.batch);
    await enqueueChunked(
      w,
      exclusiveJobs(o.jobs / 10, (i) => `warm-${i}`),
    );
    await drain(w, o.jobs / 10, o.batch);
    for (let run = 0; run < o.runs; run++) {
      await enqueueChunked(
        w,
        unflowed(o.jobs, (i) => `p-${run}-${i}`),
      );
      await measured(redis, w, o.jobs, o.batch, figures, "plain");
      await enqueueChunked(
        w,
        exclusiveJobs(o.jobs, (i) => `k-${run}-${i}`),
      );
      await measured(redis, w, o.jobs, o.batch, figures, "exclusive");
    }
  } finally {
    await w.clear();
  }
}

/** D copies of a queued job of `list` (the newest), each with a jid of its own, pushed behind it: a burst come in by another door than enqueue. */
async function pushCopies(redis: Redis, list: string, job: string, n: number): Promise<void> {
  const jid = JSON.parse(job).jid as string;
  for (let from = 0; from < n; from += 1_000) {
    await redis.lpush(
      list,
      ...Array.from({ length: Math.min(1_000, n - from) }, (_, i) =>
        job.replace(`"jid":"${jid}"`, `"jid":"${jid}-${from + i}"`),
      ),
    );
  }
}

/**
 * (b), in one world a run (warm first): P plain jobs alone; then, a key held
 * by another tick, P plain jobs behind D duplicates of it enqueued before it
 * was taken; P behind D more pushed straight into the queue (cold); then P
 * more, the duplicates all parked.
 */
async function busyKey(redis: Redis, o: FlowBenchOptions, figures: FlowFigures): Promise<void> {
  for (let run = 0; run < o.runs; run++) {
    const w = world(redis, "busy");
    try {
      await enqueueChunked(w, plainJobs(o.plain)); // warm-up, unmeasured
      await drain(w, o.plain, o.batch);
      await enqueueChunked(w, plainJobs(o.plain));
      await measured(redis, w, o.plain, o.batch, figures, "alone");
      // The duplicates are enqueued while the key is still free, its first job queued; then the holder's tick takes the key.
      await w.holder.enqueue("exclusive", ["busy"], { queue: "hold", unique: "while-executing" });
      await enqueueChunked(
        w,
        exclusiveJobs(o.duplicates, () => "busy"),
      );
      await enqueueChunked(w, plainJobs(o.plain));
      const holding = w.holder.tick({ batch: 1, concurrency: 1, budgetMs: 120_000, leaseMs: 30_000 });
      while ((await w.holder.stats()).inflight === 0) await new Promise((r) => setTimeout(r, 5));
      await measured(redis, w, o.plain, o.batch, figures, "enqueued");
      // As many more in the queue itself, in front of P plain jobs: the drain meets them there.
      const [parkedJob] = await redis.lrange(`${w.prefix}flow:park:u:busy`, -1, -1);
      await pushCopies(redis, `${w.prefix}queue:default`, parkedJob!, o.duplicates);
      await enqueueChunked(w, plainJobs(o.plain));
      await measured(redis, w, o.plain, o.batch, figures, "cold");
      await enqueueChunked(w, plainJobs(o.plain));
      await measured(redis, w, o.plain, o.batch, figures, "parked");
      w.release();
      await holding;
    } finally {
      await w.clear();
    }
  }
}

export async function measureFlow(o: FlowBenchOptions): Promise<FlowFigures> {
  const server = await startPrivate();
  const redis = new Redis(server.url);
  const figures: FlowFigures = {
    plain: [],
    exclusive: [],
    alone: [],
    enqueued: [],
    cold: [],
    parked: [],
    commands: {},
    roundTrips: {},
    scriptUs: { plain: [], exclusive: [], alone: [], enqueued: [], cold: [], parked: [] },
    cpuUs: { plain: [], exclusive: [], alone: [], enqueued: [], cold: [], parked: [] },
  };
  try {
    await overhead(redis, o, figures);
    await busyKey(redis, { ...o, runs: o.runs * 2 }, figures);
  } finally {
    redis.disconnect();
    await server.stop();
  }
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { parseArgs } = await import("node:util");
  const { values } = parseArgs({
    args: process.argv.slice(2).filter((arg) => arg !== "--"), // `npx tsx bench/flow.ts -- --jobs …` passes the -- through
    options: {
      jobs: { type: "string", default: "20000" },
      duplicates: { type: "string", default: "10000" },
      plain: { type: "string", default: "1000" },
      runs: { type: "string", default: "3" },
      batch: { type: "string", default: "100" },
    },
  });
  const o = {
    jobs: Number(values.jobs),
    duplicates: Number(values.duplicates),
    plain: Number(values.plain),
    runs: Number(values.runs),
    batch: Number(values.batch),
  };
  printFlow(o, await measureFlow(o));
  process.exit(0);
}
