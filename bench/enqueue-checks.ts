// What enqueue's checks of args cost a plain job without a schema (the
// JSON-fidelity walk, the unknown-option check): enqueueBulk of small
// jobs, through real Redis (wall time) and through an adapter that answers
// at once (the process's CPU time: where a check would show most, and the
// figure least moved by other load on the machine).
//   npx tsx bench/enqueue-checks.ts [--jobs 100000] [--rounds 5] [--redis redis://127.0.0.1:6379]
// Run it on two checkouts to compare; the figure is the median of the rounds.
import { Redis } from "ioredis";
import { ioredisAdapter } from "../src/redis/ioredis.js";
import { createTickq, type RedisAdapter } from "../src/index.js";
import * as protocol from "../src/protocol/index.js";

const flag = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1]! : fallback;
};
const JOBS = Number(flag("jobs", "100000"));
const ROUNDS = Number(flag("rounds", "5"));
const CALL = 1_000;

/** Where enqueue's jobs count sits in ARGV: after the prefix and the parts before `jobs` (one value each). */
const JOBS_AT = 1 + Object.keys(protocol.enqueue.args).indexOf("jobs");

/** Answers enqueue.lua as Redis would for fresh jobs ("1" each), without a round trip. */
const instant: RedisAdapter = {
  evalsha: async (_sha, _keys, args) => "1".repeat(Number(args[JOBS_AT])),
  eval: async (_script, _keys, args) => "1".repeat(Number(args[JOBS_AT])),
};

const jobOf = (i: number) => ({
  name: "signup" as const,
  args: [`user${i}@example.com`, { id: i, plan: "pro", tags: ["a", "b"], ref: null }] as [string, object],
});

/** Wall ms, or CPU ms of this process with `cpu`. */
async function drainMs(redis: RedisAdapter, prefix: string, cpu = false): Promise<number> {
  const tq = createTickq({ redis, prefix, jobs: { signup: (_args: [string, object]) => {} } });
  const calls = Array.from({ length: JOBS / CALL }, (_, c) =>
    Array.from({ length: CALL }, (_, k) => jobOf(c * CALL + k)),
  );
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  for (const jobs of calls) await tq.enqueueBulk(jobs);
  const used = process.cpuUsage(cpuStarted);
  return cpu ? (used.user + used.system) / 1000 : performance.now() - started;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const client = new Redis(flag("redis", "redis://127.0.0.1:6379"));
const prefix = `bench:enqueue-checks:${process.pid}:`;
const cpu: number[] = [];
const real: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  cpu.push(await drainMs(instant, prefix, true));
  real.push(await drainMs(ioredisAdapter(client), prefix));
  const keys = await client.keys(`${prefix}*`);
  if (keys.length > 0) await client.del(...keys);
}
const rate = (ms: number) => Math.round((JOBS / ms) * 1000).toLocaleString("en-US");
console.log(`${JOBS.toLocaleString("en-US")} jobs in calls of ${CALL}, median of ${ROUNDS} rounds`);
console.log(
  `client only (no Redis): ${median(cpu).toFixed(0)} ms of CPU, ${((median(cpu) * 1000) / JOBS).toFixed(2)} µs a job`,
);
console.log(`through Redis:          ${median(real).toFixed(0)} ms, ${rate(median(real))} jobs/s`);
client.disconnect();
