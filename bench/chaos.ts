// npm run chaos [-- --jobs 5000 --workers 3 --kill-every-ms 400 --max-job-ms 40 --seconds 180]
// Workers tick nonstop while one of them is SIGKILLed at random and
// replaced; jobs sleep and fail at random. At the end every job must have
// succeeded, none may be left anywhere, and the dead set must be empty.
// Exits 1 if a job was lost.
import { spawn, type ChildProcess } from "node:child_process";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { ioredisAdapter } from "../adapters/ioredis.js";
import { findRedis } from "../functions/node/find-redis.js";
import { createTickq } from "../src/index.js";

export interface ChaosOptions {
  redisUrl: string;
  jobs: number;
  workers: number;
  killEveryMs: number;
  /** Each job sleeps up to this long. */
  maxJobMs: number;
  seconds: number;
  leaseMs?: number;
  log?: (line: string) => void;
}

export interface ChaosResult {
  jobs: number;
  succeeded: number;
  lost: number;
  kills: number;
  starts: number;
  /** Jobs started more than once: failures retried, or runs cut by a kill. */
  rerun: number;
  dead: number;
  leftover: { queued: number; inflight: number; retry: number; scheduled: number };
  seconds: number;
}

export async function runChaos(o: ChaosOptions): Promise<ChaosResult> {
  const leaseMs = o.leaseMs ?? 500;
  const prefix = `chaos:${Date.now()}:`;
  const redis = new Redis(o.redisUrl);
  const tq = createTickq({ redis: ioredisAdapter(redis), prefix, jobs: { work: (_args: [number]) => {} }, maxResurrections: 1_000 });
  const jids = await tq.enqueueBulk(Array.from({ length: o.jobs }, () => ({ name: "work", args: [Math.floor(Math.random() * o.maxJobMs)] })));

  const env = { ...process.env, REDIS_URL: o.redisUrl, PREFIX: prefix, LEASE_MS: String(leaseMs) };
  const start = () => spawn(process.execPath, ["--import", "tsx", "bench/chaos-worker.ts"], { env, stdio: "ignore" });
  const workers: ChildProcess[] = Array.from({ length: o.workers }, start);
  const started = Date.now();
  let kills = 0;
  const done = () => redis.scard(`${prefix}chaos:done`);
  try {
    while ((await done()) < o.jobs && Date.now() - started < o.seconds * 1000) {
      await new Promise((r) => setTimeout(r, o.killEveryMs * (0.5 + Math.random())));
      const victim = Math.floor(Math.random() * workers.length);
      workers[victim]!.kill("SIGKILL");
      workers[victim] = start();
      kills++;
      o.log?.(`killed ${kills}: ${await done()} of ${o.jobs} done`);
    }
    // let the last dead ticks' leases run out, so their jobs come back and finish
    for (let i = 0; i < 40 && (await done()) < o.jobs; i++) await new Promise((r) => setTimeout(r, 250));
  } finally {
    for (const w of workers) w.kill("SIGKILL");
  }
  await new Promise((r) => setTimeout(r, leaseMs + 100));
  await tq.tick(); // resurrects what the final kills left, and clears their registrations
  const stats = await tq.stats();
  const starts = Object.values(await redis.hgetall(`${prefix}chaos:starts`)).map(Number);
  const succeeded = (await redis.smembers(`${prefix}chaos:done`)).filter((jid) => jids.includes(jid)).length;
  const result: ChaosResult = {
    jobs: o.jobs,
    succeeded,
    lost: o.jobs - succeeded - stats.dead,
    kills,
    starts: starts.reduce((a, b) => a + b, 0),
    rerun: starts.filter((n) => n > 1).length,
    dead: stats.dead,
    leftover: { queued: Object.values(stats.queues).reduce((a, b) => a + b, 0), inflight: stats.inflight, retry: stats.retry, scheduled: stats.scheduled },
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== "0");
  redis.disconnect();
  return result;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      jobs: { type: "string", default: "5000" },
      workers: { type: "string", default: "3" },
      "kill-every-ms": { type: "string", default: "400" },
      "max-job-ms": { type: "string", default: "40" },
      seconds: { type: "string", default: "180" },
    },
  });
  const found = await findRedis();
  const result = await runChaos({
    redisUrl: found.url,
    jobs: Number(values.jobs),
    workers: Number(values.workers),
    killEveryMs: Number(values["kill-every-ms"]),
    maxJobMs: Number(values["max-job-ms"]),
    seconds: Number(values.seconds),
    log: (line) => process.stdout.write(`\r${line}   `),
  });
  await found.stop();
  console.log("\n");
  console.log(JSON.stringify(result, null, 2));
  const clean = result.lost === 0 && result.succeeded === result.jobs && Object.values(result.leftover).every((n) => n === 0);
  console.log(clean ? "no job lost" : "FAILED: jobs lost or left behind");
  process.exit(clean ? 0 : 1);
}
