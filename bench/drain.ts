// npm run bench: tickq against BullMQ and bee-queue on the same Redis, in
// the same run. Prints enqueue and drain rates, Redis commands per job (from
// INFO commandstats, script internals included), commands sent on the wire
// per job, and what one idle minute costs. Each system first drains N/10
// jobs unmeasured (warm-up), then N jobs RUNS times, the systems in turn
// (alternating rounds). The bare loop (bench/systems/bare-loop.ts: one Lua
// call moves 100 jobs, JS parses and awaits each) is the floor tickq's
// per-job work is measured against. Then the realistic
// run (bench/realistic.ts): jobs sleeping 0–100 ms, concurrency 50.
//   --jobs 20000  --runs 3  --idle-seconds 60  --only tickq,bullmq,bee-queue,bare   (tickq-traced: with OpenTelemetry spans)
//   --ordered-payloads 100000 --ordered-ids 1000   ordered jobs (bench/ordered.ts); 0 skips them
//   --flow-jobs 20000 --flow-duplicates 10000 --flow-plain 1000   flow control (bench/flow.ts, on a private Redis); 0 skips it
//   --realistic-jobs 4000 (0: skip)  --seed 1
//   --drain-only        the no-op drain table alone (no idle minute, no other bench after it)
//   --wait-short-jobs 2000 --wait-long-jobs 40 --wait-long-seconds 60   how long a fetched job
//                       waits for a slot, jobs of 0–100 ms and 0–10 s (bench/prefetch-wait.ts); 0 skips
//   --metrics-jobs 20000   what metrics cost: off vs on, part by part, alternating (bench/metrics.ts); 0 skips
//   --plain-cost-ref c1cd743   the plain-job drain's CPU against that git ref, before issue 28's
//                       features (bench/plain-cost.ts); "" skips
//   --workflow-runs 1000 --workflow-steps 10   durable workflows beside plain jobs (bench/workflows.ts); 0 skips
//   --event-waits 20000                        one event to that many parked runs: the longest script (bench/workflow-events.ts); 0 skips
//   --adapter upstash   tickq alone over HTTP Redis instead (bench/upstash.ts,
//                       bench/upstash-realistic.ts): --latency-ms 0,20  --batch 100
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { findRedis, startPrivate } from "../src/platforms/node/find-redis.js";
import { measureFlow } from "./flow.js";
import { printFlow } from "./flow-table.js";
import { measureOrdered, printOrdered } from "./ordered.js";
import { beeQueueSystem } from "./systems/bee-queue.js";
import { bullmqSystem } from "./systems/bullmq.js";
import { runSchedulesBench } from "./schedules.js";
import { runServerlessBench, serverlessOptions } from "./serverless.js";
import { poolSystem } from "./systems/pool.js";
import { tickqSystem } from "./systems/tickq.js";
import { tickqTracedSystem } from "./systems/tickq-traced.js";
import { bareLoopSystem } from "./systems/bare-loop.js";
import type { System, SystemFactory } from "./systems/types.js";
import { durations } from "./jobs.js";
import { CONCURRENCY, measureRealistic, printRealistic, type RealisticRow, type Setup } from "./realistic.js";
import { commandsProcessed, wireCounter } from "./wire.js";
import { printWaits, runPrefetchWaitBench, type WaitRun } from "./prefetch-wait.js";
import { runMetricsBench } from "./metrics.js";
import { runPlainCostBench } from "./plain-cost.js";
import { runWorkflowsBench, workflowOptions } from "./workflows.js";
import { runWorkflowEventsBench } from "./workflow-events.js";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "20000" },
    runs: { type: "string", default: "3" },
    "idle-seconds": { type: "string", default: "60" },
    only: { type: "string", default: "tickq,bullmq,bee-queue,bare" },
    adapter: { type: "string", default: "ioredis" },
    "latency-ms": { type: "string", default: "0,20" },
    batch: { type: "string", default: "100" },
    "ordered-payloads": { type: "string", default: "100000" },
    "ordered-ids": { type: "string", default: "1000" },
    "flow-jobs": { type: "string", default: "20000" },
    "flow-duplicates": { type: "string", default: "10000" },
    "flow-plain": { type: "string", default: "1000" },
    "realistic-jobs": { type: "string", default: "4000" },
    "metrics-jobs": { type: "string", default: "20000" },
    "plain-cost-ref": { type: "string", default: "c1cd743" },
    "wait-short-jobs": { type: "string", default: "2000" },
    "wait-long-jobs": { type: "string", default: "40" },
    "wait-long-seconds": { type: "string", default: "60" },
    seed: { type: "string", default: "1" },
    "drain-only": { type: "boolean", default: false },
    ...serverlessOptions,
    ...workflowOptions,
    "event-waits": { type: "string", default: "20000" },
  },
});
const N = Number(values.jobs);
const DRAIN_ONLY = values["drain-only"];
const RUNS = Number(values.runs);
const IDLE_MS = DRAIN_ONLY ? 0 : Number(values["idle-seconds"]) * 1000;
const all: Record<string, SystemFactory> = {
  tickq: tickqSystem,
  "tickq-traced": tickqTracedSystem,
  bullmq: bullmqSystem,
  "bee-queue": beeQueueSystem,
  bare: bareLoopSystem,
};
const fmtLoad = (l: number[]) => l.map((x) => x.toFixed(2)).join(", ");
const chosen = values.only.split(",").map((name) => [name, all[name]!] as const);
const SEED = Number(values.seed);
const REAL = durations(DRAIN_ONLY ? 0 : Number(values["realistic-jobs"]), SEED);
const realistic: Setup[] = [
  ...[100, 50].map((batch) => ({
    label: `tickq batch ${batch}`,
    factory: tickqSystem,
    drain: { batch, concurrency: CONCURRENCY },
  })),
  { label: "BullMQ", factory: bullmqSystem, drain: { concurrency: CONCURRENCY } },
].filter((s) => values.only.split(",").some((name) => all[name] === s.factory));
realistic.push({ label: "in-memory pool (no Redis)", factory: poolSystem, drain: { concurrency: CONCURRENCY } });

interface Row {
  name: string;
  enqueue: number[];
  drain: number[];
  commandsPerJob: number;
  wirePerJob: number;
  roundTripsPerJob?: number;
  idleCommands?: number;
  idleWire?: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);

/**
 * Every chosen system drains in turn, round after round, the order reversed every other round
 * (bench/alternating.ts), so the load of other processes on a shared machine moves each alike: the
 * ratios between rows hold within a run. Each first drains N/10 jobs unmeasured (JIT, connections).
 */
async function measureAlternating(redisUrl: string, redis: Redis): Promise<Row[]> {
  const systems: System[] = [];
  const rows: Row[] = [];
  try {
    for (const [name, factory] of chosen) {
      const system = await factory(redisUrl, `${name}-${Date.now()}`);
      systems.push(system);
      rows.push({ name: system.name, enqueue: [], drain: [], commandsPerJob: 0, wirePerJob: 0 });
      const warmUp = Math.max(100, Math.floor(N / 10));
      await system.enqueue(warmUp);
      await system.drain(warmUp);
    }
    for (let run = 0; run < RUNS; run++) {
      const order = [...systems.keys()];
      if (run % 2 === 1) order.reverse();
      process.stdout.write(`round ${run + 1}: ${order.map((i) => rows[i]!.name).join(", ")}\n`);
      for (const i of order) {
        const system = systems[i]!;
        const row = rows[i]!;
        let t = performance.now();
        await system.enqueue(N);
        row.enqueue.push(rate(N, performance.now() - t));
        const before = await commandsProcessed(redis);
        t = performance.now();
        const { roundTrips } = await system.drain(N);
        row.drain.push(rate(N, performance.now() - t));
        if (run === 0) {
          row.commandsPerJob = ((await commandsProcessed(redis)) - before - 1) / N;
          if (roundTrips !== undefined) row.roundTripsPerJob = roundTrips / N;
        }
      }
    }
  } finally {
    for (const system of systems) await system.close();
  }
  for (const [i, [name, factory]] of chosen.entries()) await countWire(rows[i]!, name, factory, redisUrl);
  return rows;
}

/** One more drain, through a proxy that counts the commands sent on the wire. */
async function countWire(row: Row, name: string, factory: SystemFactory, redisUrl: string): Promise<void> {
  const wire = await wireCounter(redisUrl);
  const counted = await factory(wire.url, `${name}-wire-${Date.now()}`);
  try {
    await counted.enqueue(N);
    const before = wire.commands();
    await counted.drain(N);
    row.wirePerJob = (wire.commands() - before) / N;
  } finally {
    await counted.close();
    await wire.close();
  }
}

/** Each system idles on a private redis-server of its own, all at once. */
async function measureIdle(rows: Row[]): Promise<void> {
  await Promise.all(
    chosen.map(async ([name, factory], i) => {
      const server = await startPrivate();
      const wire = await wireCounter(server.url);
      const probe = new Redis(server.url);
      try {
        const system = await factory(wire.url, `${name}-idle`);
        await new Promise((r) => setTimeout(r, 500)); // let start-up finish
        const before = await commandsProcessed(probe);
        const wireBefore = wire.commands();
        await system.idle(IDLE_MS);
        rows[i]!.idleCommands = (await commandsProcessed(probe)) - before - 1;
        rows[i]!.idleWire = wire.commands() - wireBefore;
        await system.close();
      } finally {
        probe.disconnect();
        await wire.close();
        await server.stop();
      }
    }),
  );
}

async function main() {
  const found = await findRedis();
  const redis = new Redis(found.url);
  const version = (await redis.info("server")).match(/redis_version:(\S+)/)?.[1];
  console.log(`Redis ${version} at ${found.url}; ${N} no-op jobs, ${RUNS} runs each\n`);
  const atStart = loadavg();
  process.stdout.write(`measuring ${chosen.map(([name]) => name).join(", ")} in alternating rounds…\n`);
  const rows = await measureAlternating(found.url, redis);
  const atEnd = loadavg();
  const orderedOptions = {
    redisUrl: found.url,
    payloads: DRAIN_ONLY ? 0 : Number(values["ordered-payloads"]),
    ids: Number(values["ordered-ids"]),
    runs: RUNS,
    batch: 100,
  };
  if (orderedOptions.payloads > 0) process.stdout.write("measuring tickq ordered jobs…\n");
  const ordered = orderedOptions.payloads > 0 ? await measureOrdered(orderedOptions) : undefined;
  const flowOptions = {
    jobs: DRAIN_ONLY ? 0 : Number(values["flow-jobs"]),
    duplicates: Number(values["flow-duplicates"]),
    plain: Number(values["flow-plain"]),
    runs: RUNS,
    batch: 100,
  };
  if (flowOptions.jobs > 0) process.stdout.write("measuring tickq flow control…\n");
  const flow = flowOptions.jobs > 0 ? await measureFlow(flowOptions) : undefined;
  const realRows: RealisticRow[] = [];
  for (const setup of REAL.length ? realistic : []) {
    process.stdout.write(`measuring ${setup.label} on ${REAL.length} realistic jobs…\n`);
    realRows.push(await measureRealistic(setup, found.url, REAL, RUNS));
  }
  if (!DRAIN_ONLY) process.stdout.write("measuring how long fetched jobs wait for a slot…\n");
  const waits: WaitRun[] = await runPrefetchWaitBench(found.url, {
    shortJobs: DRAIN_ONLY ? 0 : Number(values["wait-short-jobs"]),
    longJobs: DRAIN_ONLY ? 0 : Number(values["wait-long-jobs"]),
    longLimitMs: Number(values["wait-long-seconds"]) * 1000,
  });
  if (IDLE_MS > 0) {
    process.stdout.write(`idling ${IDLE_MS / 1000} s…\n`);
    await measureIdle(rows);
  }
  redis.disconnect();
  await found.stop();

  const fmt = (n: number | undefined, digits = 0) => (n === undefined ? "—" : n.toFixed(digits));
  const table = rows.map((r) => ({
    system: r.name,
    "enqueue jobs/s": median(r.enqueue),
    "drain jobs/s (median)": median(r.drain),
    "drain min–max": `${Math.min(...r.drain)}–${Math.max(...r.drain)}`,
    "Redis cmds/job": fmt(r.commandsPerJob, 2),
    "wire cmds/job": fmt(r.wirePerJob, 3),
    "round trips/job": fmt(r.roundTripsPerJob, 3),
    [`idle ${IDLE_MS / 1000}s cmds (incl. scripts)`]: fmt(r.idleCommands),
    [`idle ${IDLE_MS / 1000}s wire cmds`]: fmt(r.idleWire),
  }));
  console.log();
  console.log(
    `${N} jobs, ${RUNS} alternating rounds; load average at start ${fmtLoad(atStart)}, at end ${fmtLoad(atEnd)}`,
  );
  console.table(table);
  const tickq = rows.find((r) => r.name === "tickq");
  if (tickq) {
    for (const other of rows.filter((r) => r !== tickq)) {
      const ratio = median(tickq.drain) / median(other.drain);
      // Against the bare loop the question is how much of it tickq reaches, not how many times it.
      if (other.name === "bare loop") console.log(`tickq drain / bare loop drain: ${(ratio * 100).toFixed(1)} %`);
      else console.log(`tickq drain / ${other.name} drain: ${ratio.toFixed(2)}×`);
    }
  }
  if (realRows.length) printRealistic(realRows, REAL, RUNS, SEED);
  if (waits.length) printWaits(waits);
  const bullmq = rows.find((r) => r.name === "BullMQ");
  if (ordered) printOrdered(orderedOptions, ordered, bullmq && { name: "BullMQ", jobsPerSec: median(bullmq.drain) });
  if (flow) printFlow(flowOptions, flow);
}

if (values.adapter === "upstash") {
  const { runUpstashBench } = await import("./upstash.js");
  const { runUpstashRealistic } = await import("./upstash-realistic.js");
  const latencies = values["latency-ms"].split(",").map(Number);
  await runUpstashBench(N, latencies, Number(values.batch), RUNS);
  if (REAL.length) await runUpstashRealistic(REAL, SEED, latencies, RUNS);
} else if (DRAIN_ONLY) {
  await main();
} else {
  await main();
  const metricsJobs = Number(values["metrics-jobs"]);
  if (metricsJobs > 0) await runMetricsBench({ jobs: metricsJobs, runs: Math.max(RUNS, 3), batch: 100 });
  const plainRef = values["plain-cost-ref"];
  if (plainRef !== "")
    await runPlainCostBench({ refs: [plainRef], jobs: N, rounds: Math.max(RUNS, 5), metrics: false });
  await runSchedulesBench();
  await runWorkflowsBench(
    Number(values["workflow-runs"]),
    Number(values["workflow-steps"]),
    RUNS,
    Number(values["workflow-resume-steps"]),
  );
  await runWorkflowEventsBench(Number(values["event-waits"]), RUNS);
  const found = await findRedis();
  await runServerlessBench(values, found.url);
  await found.stop();
}
process.exit(0);
