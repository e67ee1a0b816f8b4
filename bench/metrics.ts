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
import type { Redis } from "ioredis";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { createTickq, type RedisAdapter } from "../src/index.js";
import { alternate, median, onPrivateRedis } from "./alternating.js";
import { enqueueInChunks, tickUntil } from "./noops.js";
import { commandCountBetween, redisUsage } from "./wire.js";

type Parts = "off" | "counters" | "durations" | "all";
const VARIANTS: { label: string; parts: Parts }[] = [
  { label: "metrics: false (plain)", parts: "off" },
  { label: "counters only (runs, failures)", parts: "counters" },
  { label: "+ duration histogram", parts: "durations" },
  { label: "+ wait histogram (all: the default)", parts: "all" },
];

// Blanks the run times (counters) or the waits (durations) of the metrics section (src/metrics/section.ts):
// after the others count "n[ results] mG RETENTION" come n others of 5 arguments, then G groups of 7
// (name, queue, entries, ms, wait ms, duration buckets, wait buckets), then 3 per other entry.
// Every variant goes through it (off and all change nothing), so its own cost is the same in each.
function partsOnly(adapter: RedisAdapter, parts: Parts): RedisAdapter {
  const cut = (args: string[]) => {
    const at = args.findIndex((a) => / m\d+ \d+$/.test(a));
    if (at < 0 || parts === "all") return args;
    const [, n, m] = /^(\d+)(?: (\d+))?/.exec(args[at]!)!;
    const groups = Number(/ m(\d+) \d+$/.exec(args[at]!)![1]);
    const first = at + 1 + 5 * Number(n) + 5 * Number(m ?? 0);
    const out = [...args];
    for (let g = 0; g < groups; g++) {
      if (parts === "counters") {
        out[first + 7 * g + 3] = "0";
        out[first + 7 * g + 5] = "";
      }
      out[first + 7 * g + 6] = "";
    }
    const others = first + 7 * groups;
    for (let k = 0; k < Number(n); k++) {
      if (parts === "counters") out[others + 3 * k + 1] = "";
      out[others + 3 * k + 2] = "";
    }
    return out;
  };
  return {
    evalsha: (sha, keys, args) => adapter.evalsha(sha, keys, cut(args)),
    eval: (script, keys, args) => adapter.eval(script, keys, cut(args)),
  };
}

// CPU time, not wall time: on a loaded machine the wall clock measures the other processes too.
/** Microseconds of CPU the private Redis used so far (INFO cpu), and commands it ran (scripts' own calls included). */
const nodeCpuUsec = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

async function drain(redis: Redis, parts: Parts, n: number, batch: number, label: string) {
  const prefix = `bench-metrics:${label}:`;
  const tq = createTickq({
    redis: partsOnly(ioredisAdapter(redis), parts),
    prefix,
    jobs: { noop: (_args: [number]) => {} },
    metrics: parts === "off" ? false : {},
  });
  await enqueueInChunks(
    (jobs) => tq.enqueueBulk(jobs),
    n,
    (i: number) => ({ name: "noop" as const, args: [i] as [number] }),
  );
  const redisBefore = await redisUsage(redis);
  const nodeBefore = nodeCpuUsec();
  const start = performance.now();
  await tickUntil(tq, n, { batch });
  const rate = n / ((performance.now() - start) / 1000);
  const nodeUsec = (nodeCpuUsec() - nodeBefore) / n;
  const redisAfter = await redisUsage(redis);
  await redis.flushdb();
  return {
    rate,
    nodeUsec,
    redisUsec: (redisAfter.cpuUsec - redisBefore.cpuUsec) / n,
    commands: commandCountBetween(redisBefore, redisAfter) / n,
  };
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

export async function runMetricsBench(options: { jobs: number; runs: number; batch: number }): Promise<void> {
  const { jobs: n, runs, batch } = options;
  await onPrivateRedis(async (redis) => {
    console.log(
      `\nWhat metrics cost: private Redis, ${n} no-op jobs per drain, batch ${batch}, ${runs} rounds, variants alternating`,
    );
    type Sample = Awaited<ReturnType<typeof drain>>;
    const samples = await alternate({
      variants: VARIANTS,
      rounds: runs,
      jobs: n,
      drain: (v, jobs, round) => drain(redis, v.parts, jobs, batch, `${round}-${v.parts}`),
    });
    const med = (v: (typeof VARIANTS)[number], pick: (s: Sample) => number) => median(samples.get(v)!.map(pick));
    const cpu = (s: Sample) => s.nodeUsec + s.redisUsec;
    const plain = VARIANTS[0]!;
    let previous = plain;
    console.table(
      VARIANTS.map((v) => {
        const rates = samples.get(v)!.map((s) => s.rate);
        const row = {
          variant: v.label,
          "CPU µs/job (Node + Redis)": med(v, cpu).toFixed(2),
          "vs plain": `${((med(v, cpu) / med(plain, cpu) - 1) * 100).toFixed(1)} %`,
          "this part": v === plain ? "—" : `${(med(v, cpu) - med(previous, cpu)).toFixed(2)} µs`,
          "Node µs/job": med(v, (s) => s.nodeUsec).toFixed(2),
          "Redis µs/job": med(v, (s) => s.redisUsec).toFixed(2),
          "Redis cmds/job": med(v, (s) => s.commands).toFixed(3),
          "drain jobs/s (median, wall)": Math.round(median(rates)),
          "vs plain (wall)": `${((median(rates) / med(plain, (s) => s.rate) - 1) * 100).toFixed(1)} %`,
        };
        previous = v;
        return row;
      }),
    );
    const memory = await memoryPerHour(redis, 10, 5);
    console.log(
      `Memory for an hour of minutes (runs spread over 5 buckets): ${Math.round(memory.perName)} bytes per job name, ` +
        `${Math.round(memory.perQueue)} bytes per queue; the first name and queue ${Math.round(memory.first)} bytes (key overhead included).`,
    );
  });
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
