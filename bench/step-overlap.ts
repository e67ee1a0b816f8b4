// npx tsx bench/step-overlap.ts [--jobs 20000 --rounds 3 --adapter ioredis|node-redis]
// How the one-loop no-op drain (batch 100, one tick loop, a private Redis) spends a step: when it goes
// out, when its reply's bytes come back, and how long the tick's event loop sat idle meanwhile. Per
// job it prints the wall time, the tick process's CPU (process.cpuUsage), the event loop's idle time
// (performance.eventLoopUtilization) and Redis' CPU (INFO cpu); per step, the time in flight (sent to
// bytes arrived), the idle part of it, and the time from a reply's arrival to the next step going out
// when that came later (Redis had nothing of the tick's queued meanwhile: the reply read, jobs run, the
// acks encoded and written, while Redis waits), with the share of steps whose next one was already
// sent as their reply arrived (over TCP a second step waits queued at Redis: pipeline.ts). Node and
// Redis overlap where the wall is less than their sum.
// Wall and idle need a quiet machine; the CPU figures and the split per step read on a busy one.
// `--adapter node-redis`: the tick over node-redis (which writes its commands in a setImmediate after
// the turn that sent them, not at once as ioredis does); the split per step reads ioredis' socket,
// so it shows only the wall and CPU figures.
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { createTickq } from "../src/index.js";
import { startPrivate } from "../src/platforms/node/find-redis.js";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import type { RedisAdapter, RedisReply } from "../src/redis/types.js";

const { values } = parseArgs({
  options: {
    jobs: { type: "string", default: "20000" },
    rounds: { type: "string", default: "3" },
    adapter: { type: "string", default: "ioredis" },
  },
});
const jobs = Number(values.jobs);

interface Step {
  sent: number;
  arrived: number;
  idleAtSend: number;
  idleAtArrival: number;
}

const server = await startPrivate();
const client = new Redis(server.url);
await new Promise((resolve) => client.once("ready", resolve));
// The moment a reply's first bytes reach the tick, before ioredis decodes them (a reply may come in
// several chunks). Replies come back in the order the calls went out on the one connection, and two
// may be in flight (pipeline.ts): the first chunk that comes once a call is the oldest unanswered
// counts for it (or, when the chunk that ended the one before it already held it all, that chunk).
const pending: Step[] = [];
let lastChunk = { at: 0, idle: 0 };
client.stream.prependListener("data", () => {
  lastChunk = { at: performance.now(), idle: performance.eventLoopUtilization().idle };
  const head = pending[0];
  if (head && head.arrived === 0) {
    head.arrived = lastChunk.at;
    head.idleAtArrival = lastChunk.idle;
  }
});
// node-redis loaded only when asked: its hundreds of command modules are no part of an ioredis run.
const nodeRedis =
  values.adapter === "node-redis"
    ? await (await import("redis")).createClient({ url: server.url }).connect()
    : undefined;
const base = nodeRedis
  ? (await import("../src/redis/node-redis.js")).nodeRedisAdapter(nodeRedis)
  : ioredisAdapter(client);
let steps: Step[] | undefined;
const adapter: RedisAdapter = {
  ...base,
  evalsha(sha, keys, args) {
    const reply = base.evalsha(sha, keys, args);
    if (!steps) return reply;
    const step: Step = {
      sent: performance.now(),
      arrived: 0,
      idleAtSend: performance.eventLoopUtilization().idle,
      idleAtArrival: 0,
    };
    steps.push(step);
    pending.push(step);
    return reply.then((value: RedisReply) => {
      pending.splice(pending.indexOf(step), 1);
      if (step.arrived === 0) {
        step.arrived = lastChunk.at;
        step.idleAtArrival = lastChunk.idle;
      }
      return value;
    });
  },
};
const tq = createTickq({
  redis: adapter,
  prefix: "step-overlap:",
  jobs: { noop: () => {} },
  logger: { info() {}, warn() {}, error() {} },
});
const enqueue = async (n: number) => {
  for (let i = 0; i < n; i += 1_000)
    await tq.enqueueBulk(Array.from({ length: Math.min(1_000, n - i) }, (_, k) => ({ name: "noop", args: [i + k] })));
};
const drain = async () => {
  for (;;) {
    const report = await tq.tick({ batch: 100, concurrency: 100, budgetMs: 60_000 });
    if (report.fetched === 0 && !report.more) return;
  }
};
const redisCpuUs = async () => {
  const info = await client.info("cpu");
  const read = (field: string) => Number(new RegExp(`${field}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (read("used_cpu_user") + read("used_cpu_sys")) * 1e6;
};

// JIT, connections and the scripts' cache warm first, unmeasured.
await enqueue(jobs);
await drain();
const perJob = (us: number) => (us / jobs).toFixed(2).padStart(6);
console.log(
  `one-loop no-op drain of ${jobs.toLocaleString("en")} jobs, batch 100, ${values.adapter}: µs a job, then ms a step`,
);
for (let round = 0; round < Number(values.rounds); round++) {
  await enqueue(jobs);
  const redisBefore = await redisCpuUs();
  const cpu = process.cpuUsage();
  const loop = performance.eventLoopUtilization();
  const t = performance.now();
  steps = [];
  await drain();
  const measured = steps;
  steps = undefined;
  const wallUs = (performance.now() - t) * 1_000;
  const idleUs = performance.eventLoopUtilization(loop).idle * 1_000;
  const used = process.cpuUsage(cpu);
  const redisUs = (await redisCpuUs()) - redisBefore;
  let inFlight = 0;
  let idleInFlight = 0;
  let arrivalToNext = 0;
  let queued = 0;
  for (let i = 0; i < measured.length; i++) {
    const step = measured[i]!;
    inFlight += step.arrived - step.sent;
    idleInFlight += step.idleAtArrival - step.idleAtSend;
    const next = measured[i + 1];
    if (next) arrivalToNext += Math.max(0, next.sent - step.arrived);
    if (next && next.sent <= step.arrived) queued++;
  }
  const n = measured.length;
  const split = nodeRedis
    ? ""
    : ` | ${n} calls: in flight ${(inFlight / n).toFixed(3)}, idle in it ${(idleInFlight / n).toFixed(3)}, reply to next call ${(arrivalToNext / Math.max(1, n - 1)).toFixed(3)}, next already sent ${((100 * queued) / Math.max(1, n - 1)).toFixed(0)} %`;
  console.log(
    `  wall ${perJob(wallUs)}  node CPU ${perJob(used.user + used.system)} (sys ${perJob(used.system)})  idle ${perJob(idleUs)}  Redis CPU ${perJob(redisUs)}${split}`,
  );
}
client.disconnect();
await nodeRedis?.close();
await server.stop();
process.exit(0);
