// What metrics cost (docs/operate/metrics.md): the drain of no-op jobs with
// metrics off, and on in three steps — counters only (runs, failures), with
// the duration histogram, with the wait histogram too (all of it, the
// default) — interleaved round by round on a private Redis, so the load of
// other processes moves every variant alike. The steps are made by blanking
// the run time or the wait of each entry of the ack's metrics section on its
// way to Redis (lib/metrics/record-runs.lua skips what is not measured).
// Then Redis memory per job name and per queue for an hour of minutes.
//   npx tsx bench/metrics.ts --jobs 20000 --runs 5   (npm run bench runs it too)
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { createTickq, type RedisAdapter } from "../src/index.js";

type Parts = "off" | "counters" | "durations" | "all";
const VARIANTS: { label: string; parts: Parts }[] = [
  { label: "metrics: false (plain)", parts: "off" },
  { label: "counters only (runs, failures)", parts: "counters" },
  { label: "+ duration histogram", parts: "durations" },
  { label: "+ wait histogram (all: the default)", parts: "all" },
];

// Blanks the run times (counters) or the waits (durations) of the metrics section (src/metrics/section.ts):
// after the others count "n[ results] mN RETENTION" come n others of 5 arguments, then 3 per entry.
function partsOnly(adapter: RedisAdapter, parts: Parts): RedisAdapter {
  if (parts === "off" || parts === "all") return adapter;
  const cut = (args: string[]) => {
    const at = args.findIndex((a) => / m\d+ \d+$/.test(a));
    if (at < 0) return args;
    const [, n, m] = /^(\d+)(?: (\d+))?/.exec(args[at]!)!;
    const entries = Number(/ m(\d+) \d+$/.exec(args[at]!)![1]);
    const first = at + 1 + 5 * Number(n) + 5 * Number(m ?? 0);
    const out = [...args];
    for (let k = 0; k < entries; k++) {
      if (parts === "counters") out[first + 3 * k + 1] = "";
      out[first + 3 * k + 2] = "";
    }
    return out;
  };
  return {
    evalsha: (sha, keys, args) => adapter.evalsha(sha, keys, cut(args)),
    eval: (script, keys, args) => adapter.eval(script, keys, cut(args)),
  };
}

/** Microseconds Redis spent in scripts so far (INFO commandstats): less moved by other processes than wall time. */
async function scriptUsec(redis: Redis): Promise<number> {
  const info = await redis.info("commandstats");
  let total = 0;
  for (const m of info.matchAll(/^cmdstat_(?:evalsha|eval):calls=\d+,usec=(\d+)/gm)) total += Number(m[1]);
  return total;
}

async function drain(redis: Redis, parts: Parts, n: number, batch: number, label: string) {
  const prefix = `bench-metrics:${label}:`;
  const tq = createTickq({
    redis: partsOnly(ioredisAdapter(redis), parts),
    prefix,
    jobs: { noop: (_args: [number]) => {} },
    metrics: parts === "off" ? false : {},
  });
  for (let i = 0; i < n; i += 1_000) {
    await tq.enqueueBulk(
      Array.from({ length: Math.min(1_000, n - i) }, (_, k) => ({ name: "noop" as const, args: [i + k] as [number] })),
    );
  }
  const usecBefore = await scriptUsec(redis);
  const start = performance.now();
  let done = 0;
  while (done < n) {
    const report = await tq.tick({ batch, concurrency: batch, budgetMs: 60_000 });
    done += report.succeeded;
    if (report.fetched === 0) throw new Error(`drained only ${done} of ${n}`);
  }
  const rate = n / ((performance.now() - start) / 1000);
  const usecPerJob = ((await scriptUsec(redis)) - usecBefore) / n;
  await redis.flushdb();
  return { rate, usecPerJob };
}

/**
 * Bytes an hour of metrics takes per job name and per queue: 60 minute hashes and the totals,
 * with the fields lib/metrics/record-runs.lua writes for runs spread over `buckets` buckets
 * (written here with the same HINCRBYs, as an hour of real ticks would leave them).
 */
async function memoryPerHour(redis: Redis, names: number, buckets: number) {
  const used = async () => Number(/used_memory:(\d+)/.exec(await redis.info("memory"))?.[1]);
  const fill = async (jobNames: number, queues: number) => {
    await redis.flushdb();
    const before = await used();
    const pipe = redis.pipeline();
    for (let minute = 0; minute < 60; minute++) {
      for (const key of [`m:metrics:${minute}`, "m:metrics:total"]) {
        for (let j = 0; j < jobNames; j++) {
          const job = `j|SomeApp::Jobs::Name${j}|`;
          pipe.hincrby(key, `${job}r`, 1000).hincrby(key, `${job}f`, 3).hincrby(key, `${job}ms`, 123_456);
          for (let b = 1; b <= buckets; b++) pipe.hincrby(key, `${job}b${b + 2}`, 100);
        }
        for (let q = 0; q < queues; q++) {
          pipe.hincrby(key, `q|queue${q}|ms`, 654_321);
          for (let b = 1; b <= buckets; b++) pipe.hincrby(key, `q|queue${q}|b${b}`, 100);
        }
      }
      pipe.expire(`m:metrics:${minute}`, 3600);
    }
    await pipe.exec();
    return (await used()) - before;
  };
  const base = await fill(1, 1);
  const more = await fill(1 + names, 1);
  const moreQueues = await fill(1, 1 + names);
  await redis.flushdb();
  return { perName: (more - base) / names, perQueue: (moreQueues - base) / names, first: base };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function runMetricsBench(options: { jobs: number; runs: number; batch: number }): Promise<void> {
  const { jobs: n, runs, batch } = options;
  const server = await startPrivate();
  const redis = new Redis(server.url);
  try {
    console.log(
      `\nWhat metrics cost: private Redis, ${n} no-op jobs per drain, batch ${batch}, ${runs} rounds, variants alternating`,
    );
    const rates = new Map(VARIANTS.map((v) => [v, [] as number[]]));
    const usecs = new Map(VARIANTS.map((v) => [v, [] as number[]]));
    for (const v of VARIANTS) await drain(redis, v.parts, Math.ceil(n / 10), batch, "warm"); // JIT, connections
    for (let round = 0; round < runs; round++) {
      for (const v of round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()) {
        const { rate, usecPerJob } = await drain(redis, v.parts, n, batch, `${round}-${v.parts}`);
        rates.get(v)!.push(rate);
        usecs.get(v)!.push(usecPerJob);
      }
    }
    const plain = median(rates.get(VARIANTS[0]!)!);
    const plainUsec = median(usecs.get(VARIANTS[0]!)!);
    let previous = plainUsec;
    console.table(
      VARIANTS.map((v) => {
        const r = rates.get(v)!;
        const usec = median(usecs.get(v)!);
        const row = {
          variant: v.label,
          "drain jobs/s (median)": Math.round(median(r)),
          "min–max": `${Math.round(Math.min(...r))}–${Math.round(Math.max(...r))}`,
          "vs plain": `${((median(r) / plain - 1) * 100).toFixed(1)} %`,
          "Lua µs/job": usec.toFixed(2),
          "this part, Lua µs/job": v.parts === "off" ? "—" : (usec - previous).toFixed(2),
        };
        previous = usec;
        return row;
      }),
    );
    const memory = await memoryPerHour(redis, 10, 5);
    console.log(
      `Memory for an hour of minutes (runs spread over 5 buckets): ${Math.round(memory.perName)} bytes per job name, ` +
        `${Math.round(memory.perQueue)} bytes per queue; the first name and queue ${Math.round(memory.first)} bytes (key overhead included).`,
    );
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      jobs: { type: "string", default: "20000" },
      runs: { type: "string", default: "5" },
      batch: { type: "string", default: "100" },
    },
  });
  await runMetricsBench({ jobs: Number(values.jobs), runs: Number(values.runs), batch: Number(values.batch) });
  process.exit(0);
}
