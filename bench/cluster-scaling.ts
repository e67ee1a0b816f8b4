// npm run bench:cluster [-- --jobs 100000 --masters 1,2,3 --partitions 1|N|masters --loops 2 --batch 100
//                          --skip-single]
// How tickq's work spreads over a Redis Cluster. For each cluster size
// (private clusters, bench/chaos/private-cluster.ts, no replicas), the same
// no-op drain as on one plain redis-server: N jobs enqueued, then drained by
// `loops` tick loops in this process over ioredis' Cluster client. Per
// master, from INFO commandstats and INFO cpu before and after the drain:
// its share of the Redis commands (those run inside scripts included), its
// share of the Lua time (EVALSHA + EVAL usec), its Lua µs per job and its CPU
// time. With one hash tag (`{bench}:`, today's layout) every key sits in one
// slot, so one master does all the work: the baseline. With `--partitions N`
// each of M masters should carry about 1/M of it when M divides N;
// `--partitions masters` gives each cluster size as many partitions as masters. Then a model: the busiest node's
// Redis CPU per job turned into the throughput N nodes on N cores would give
// (docs/benchmarks.md). On a 2-core machine the Redis processes and the
// ticks share the cores: read the shares, not the speed-ups.
import { parseArgs } from "node:util";
import { Cluster, Redis } from "ioredis";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { createTickq } from "../src/index.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import type { RedisAdapter } from "../src/types.js";
import { startPrivateRedisCluster } from "./chaos/private-cluster.js";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "100000" },
    masters: { type: "string", default: "1,2,3" },
    partitions: { type: "string", default: "1" },
    loops: { type: "string", default: "2" },
    batch: { type: "string", default: "100" },
    "skip-single": { type: "boolean", default: false },
  },
});
const N = Number(values.jobs);
const LOOPS = Number(values.loops);
const BATCH = Number(values.batch);
const PER_MASTER = values.partitions === "masters";
const PARTITIONS = PER_MASTER ? 0 : Number(values.partitions);
if (!PER_MASTER && !(PARTITIONS >= 1))
  throw new Error(`--partitions must be a count or "masters", got ${values.partitions}`);

/** What one Redis process did: commands (all, and EVALSHA + EVAL), Lua usec, CPU ms. */
interface NodeWork {
  port: number;
  calls: number;
  scriptCalls: number;
  luaUsec: number;
  cpuMs: number;
}

async function workOf(port: number): Promise<NodeWork> {
  const redis = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 1 });
  try {
    const [commands, cpu] = await Promise.all([redis.info("commandstats"), redis.info("cpu")]);
    const work: NodeWork = { port, calls: 0, scriptCalls: 0, luaUsec: 0, cpuMs: 0 };
    for (const m of commands.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
      work.calls += Number(m[2]);
      if (m[1] === "evalsha" || m[1] === "eval") {
        work.scriptCalls += Number(m[2]);
        work.luaUsec += Number(m[3]);
      }
    }
    const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(cpu)?.[1] ?? 0);
    work.cpuMs = (seconds("used_cpu_user") + seconds("used_cpu_sys")) * 1_000;
    return work;
  } finally {
    redis.disconnect();
  }
}

const minus = (a: NodeWork, b: NodeWork): NodeWork => ({
  port: a.port,
  calls: a.calls - b.calls,
  scriptCalls: a.scriptCalls - b.scriptCalls,
  luaUsec: a.luaUsec - b.luaUsec,
  cpuMs: a.cpuMs - b.cpuMs,
});

interface Run {
  label: string;
  rate: number;
  nodes: NodeWork[];
  /** CPU of this process (the ticks and the client) per job, µs. */
  clientCpuUsPerJob: number;
}

const jobs = { noop: () => {} };

/** Enqueues N no-op jobs, then drains them with LOOPS tick loops; measures each port around the drain. */
async function drain(label: string, adapter: RedisAdapter, layout: { prefix: string }, ports: number[]): Promise<Run> {
  const tq = createTickq({ redis: adapter, ...layout, jobs, logger: { info() {}, warn() {}, error() {} } });
  const enqueue = async (n: number) => {
    for (let i = 0; i < n; i += 1_000)
      await tq.enqueueBulk(Array.from({ length: Math.min(1_000, n - i) }, (_, k) => ({ name: "noop", args: [i + k] })));
  };
  const ticks = async () => {
    let done = 0;
    await Promise.all(
      Array.from({ length: LOOPS }, async () => {
        for (;;) {
          const report = await tq.tick({ batch: BATCH, concurrency: BATCH, budgetMs: 60_000 });
          done += report.succeeded;
          if (report.fetched === 0 && !report.more) return;
        }
      }),
    );
    return done;
  };
  // One unmeasured drain first, as bench/drain.ts does: JIT, connections and the scripts' cache warm.
  await enqueue(Math.max(100, Math.floor(N / 10)));
  await ticks();
  await enqueue(N);
  const before = await Promise.all(ports.map(workOf));
  const cpu = process.cpuUsage();
  const t = performance.now();
  const done = await ticks();
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  if (done !== N) throw new Error(`${label}: drained ${done} of ${N}`);
  const after = await Promise.all(ports.map(workOf));
  return {
    label,
    rate: Math.round((N / ms) * 1_000),
    nodes: after.map((a, i) => minus(a, before[i]!)),
    clientCpuUsPerJob: (used.user + used.system) / N,
  };
}

const pct = (part: number, whole: number) => `${whole === 0 ? 0 : ((100 * part) / whole).toFixed(1)} %`;

function print(run: Run, single?: Run): void {
  const calls = run.nodes.reduce((a, n) => a + n.calls, 0);
  const lua = run.nodes.reduce((a, n) => a + n.luaUsec, 0);
  const versus = single ? ` (${(run.rate / single.rate).toFixed(2)}× the single node's ${single.rate})` : "";
  console.log(`\n${run.label}: drain ${run.rate.toLocaleString("en")} jobs/s${versus}`);
  console.log(
    `  client CPU ${run.clientCpuUsPerJob.toFixed(1)} µs/job; Lua ${(lua / N).toFixed(2)} µs/job in all; commands ${(calls / N).toFixed(3)}/job`,
  );
  const rows = [
    ["node", "commands", "share", "scripts", "Lua ms", "Lua share", "Lua µs/job", "CPU ms", "CPU µs/job"],
    ...run.nodes.map((n) => [
      String(n.port),
      n.calls.toLocaleString("en"),
      pct(n.calls, calls),
      n.scriptCalls.toLocaleString("en"),
      (n.luaUsec / 1_000).toFixed(0),
      pct(n.luaUsec, lua),
      (n.luaUsec / N).toFixed(2),
      n.cpuMs.toFixed(0),
      ((n.cpuMs * 1_000) / N).toFixed(2),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows)
    console.log(`  ${row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")}`);
}

/** The model: with the load spread evenly, N nodes on N cores drain N × 1e6 / (busiest node's µs per job). */
function printModel(run: Run): void {
  const busiest = run.nodes.reduce((a, n) => (n.cpuMs > a.cpuMs ? n : a));
  const cpuUs = (run.nodes.reduce((a, n) => a + n.cpuMs, 0) * 1_000) / N;
  const luaUs = run.nodes.reduce((a, n) => a + n.luaUsec, 0) / N;
  console.log(
    `\nmodel (from ${run.label}): Redis CPU ${cpuUs.toFixed(2)} µs/job over all nodes (Lua ${luaUs.toFixed(2)}), busiest node ${((busiest.cpuMs * 1_000) / N).toFixed(2)} µs/job; ticks ${run.clientCpuUsPerJob.toFixed(1)} µs/job of client CPU`,
  );
  console.log(
    "  nodes  Redis-bound jobs/s, load spread evenly  (Lua alone)  Redis-bound, one hash tag  tick cores needed",
  );
  for (const n of [1, 2, 3, 4, 6, 8]) {
    const spread = (n * 1e6) / cpuUs;
    const oneTag = 1e6 / cpuUs;
    console.log(
      `  ${String(n).padStart(5)}  ${Math.round(spread).toLocaleString("en").padStart(38)}  ${Math.round(
        (n * 1e6) / luaUs,
      )
        .toLocaleString("en")
        .padStart(
          11,
        )}  ${Math.round(oneTag).toLocaleString("en").padStart(25)}  ${((spread * run.clientCpuUsPerJob) / 1e6).toFixed(1).padStart(17)}`,
    );
  }
}

const layout = (partitions: number) =>
  (partitions > 1 ? { prefix: "bench:", partitions } : { prefix: "{bench}:" }) as { prefix: string };

console.log(
  `cluster scaling: ${N.toLocaleString("en")} no-op jobs, ${LOOPS} tick loops, batch ${BATCH}, ${PER_MASTER ? "as many partitions as masters" : PARTITIONS > 1 ? `partitions: ${PARTITIONS}` : "one hash tag ({bench}:)"}`,
);
/** The same drain on one plain redis-server of its own. */
async function singleNode(): Promise<Run> {
  const server = await startPrivate();
  const plain = new Redis(server.url);
  try {
    const port = Number(new URL(server.url).port);
    const run = await drain("single node (redis-server, no cluster)", ioredisAdapter(plain), { prefix: "bench:" }, [
      port,
    ]);
    print(run);
    return run;
  } finally {
    plain.disconnect();
    await server.stop();
  }
}
const single = values["skip-single"] ? undefined : await singleNode();
const runs: Run[] = [];
for (const masters of values.masters!.split(",").map(Number)) {
  const cluster = await startPrivateRedisCluster({ masters });
  const client = new Cluster(cluster.seeds);
  try {
    const ports = (await cluster.masters()).map((m) => m.port);
    const partitions = PER_MASTER ? masters : PARTITIONS;
    const shape = `${masters} master${masters > 1 ? "s" : ""}, ${partitions > 1 ? `${partitions} partitions` : "one hash tag"}`;
    const run = await drain(shape, ioredisAdapter(client), layout(partitions), ports);
    print(run, single);
    runs.push(run);
  } finally {
    client.disconnect();
    await cluster.stop();
  }
}
const widest = runs.at(-1);
if (widest) printModel(widest);
if (single) printModel(single);
process.exit(0);
