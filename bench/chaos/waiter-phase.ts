// The waiter-death phase, over one adapter: processes that called
// enqueueAndWait die (SIGKILL) while their jobs run, beside processes that
// live. docs/guides/results.md promises that an awaited job's tick writes its
// outcome to `result:JID` for 1 hour whoever waits: so each job still runs
// once, a dead waiter's results are read by another process through
// tq.jobs.result, each result key expires within the hour, and the living
// waiters get their values. Ticks run in this process; no other fault is
// injected (a killed tick may run a job twice, which is not this promise).
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { startUpstashLocal, type UpstashLocalServer } from "../../tools/upstash-local/server.js";
import { createTickq } from "../../src/index.js";
import { columnOf, mustBeZero, mustMatch, problemsOf, type Check, type Column } from "./checks.js";
import { endpointEnv, openEndpoint, type Endpoint } from "./connect.js";
import type { ChaosPhase, PhaseContext } from "./phase-types.js";
import { sleep } from "./rng.js";
import { deleteUnder } from "./settle.js";
import { waiterJobs } from "./waiter-jobs.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WAITER = fileURLToPath(new URL("./waiter-worker.ts", import.meta.url));
const WAITERS = 4;
const KILLED = 2;
const JOBS_EACH = 20;
const RESULT_TTL_MS = 3_600_000;
const TIME_LIMIT_MS = 120_000;
const TICK = { concurrency: 8, batch: 8, budgetMs: 5_000 };

interface WaiterResult {
  jobs: number;
  /** Jobs of killed waiters that had started and not ended when their waiter died. */
  runningAtDeath: number;
  ranOtherThanOnce: string[];
  unreadable: string[];
  badExpiry: string[];
  liveAnswered: number;
  liveJobs: number;
  problems: string[];
}

const checks: Check<WaiterResult>[] = [
  {
    label: "awaited jobs running when their waiter was killed",
    value: (r) => r.runningAtDeath,
    problem: (r) => (r.runningAtDeath > 0 ? undefined : "no waiter died while its job ran: the phase tested nothing"),
  },
  mustBeZero(
    "awaited jobs run other than once",
    (r) => r.ranOtherThanOnce.length,
    (r) => r.ranOtherThanOnce,
  ),
  mustBeZero(
    "killed waiters' results not readable by another process",
    (r) => r.unreadable.length,
    (r) => r.unreadable,
  ),
  mustBeZero(
    "killed waiters' result keys without an expiry within 1 hour",
    (r) => r.badExpiry.length,
    (r) => r.badExpiry,
  ),
  mustMatch(
    "living waiters' answers right / their jobs",
    (r) => r.liveAnswered,
    (r) => r.liveJobs,
    "a waiter that lives gets each job's value",
  ),
];

/** Starts a waiter for `jids`; resolves its exit. */
function startWaiter(env: Record<string, string>, jids: string[]): { child: ChildProcess; exited: Promise<void> } {
  const child = spawn(process.execPath, ["--import", "tsx", WAITER], {
    cwd: ROOT,
    env: { ...process.env, ...env, JIDS: jids.join(",") },
    stdio: ["ignore", "ignore", "inherit"],
  });
  return { child, exited: new Promise((resolve) => child.once("exit", () => resolve())) };
}

async function runWaiterPhase(ctx: PhaseContext): Promise<WaiterResult> {
  const prefix = `chaos-wait:${ctx.runId}:${ctx.adapter}:`;
  const at = `tickq-chaos-wait:${ctx.runId}:${ctx.adapter}:`;
  const ledger = new Redis(ctx.ledgerUrl);
  const admin = new Redis(ctx.redis.url);
  let rest: UpstashLocalServer | undefined;
  let endpoint: Endpoint = { adapter: "ioredis", url: ctx.redis.url };
  if (ctx.adapter === "upstash") {
    rest = await startUpstashLocal({ redisUrl: ctx.redis.url, token: `chaos-wait-${ctx.runId}` });
    endpoint = { adapter: "upstash", url: rest.url, token: rest.token };
  }
  const opened = openEndpoint(endpoint);
  const quiet = { info: () => {}, warn: () => {}, error: () => {} };
  const tq = createTickq({ redis: opened.adapter, prefix, jobs: waiterJobs(ledger, at), logger: quiet });
  const jidsOf = Array.from({ length: WAITERS }, (_, w) =>
    Array.from({ length: JOBS_EACH }, (_, n) => `wait-${ctx.runId}-${ctx.adapter}-${w}-${n}`),
  );
  const all = jidsOf.flat();
  const env = { ...endpointEnv(endpoint), PREFIX: prefix, LEDGER_URL: ctx.ledgerUrl, LEDGER_PREFIX: at };
  const waiters = jidsOf.map((jids) => startWaiter(env, jids));
  const result: WaiterResult = {
    jobs: all.length,
    runningAtDeath: 0,
    ranOtherThanOnce: [],
    unreadable: [],
    badExpiry: [],
    liveAnswered: 0,
    liveJobs: (WAITERS - KILLED) * JOBS_EACH,
    problems: [],
  };
  let ticking = true;
  const until = Date.now() + TIME_LIMIT_MS;
  const loop = async () => {
    while (ticking && Date.now() < until) {
      const report = await tq.tick(TICK).catch(() => undefined);
      if (!report || report.fetched === 0) await sleep(20);
    }
  };
  const loops = [loop(), loop()];
  try {
    ctx.log(`waiters ${ctx.adapter}: ${WAITERS} waiters of ${JOBS_EACH} jobs, ${KILLED} killed while their jobs run`);
    // Each doomed waiter dies once one of its jobs runs: started before the kill, not ended after it.
    await Promise.all(
      waiters.slice(0, KILLED).map(async ({ child, exited }, w) => {
        const mine = new Set(jidsOf[w]);
        let started: string[] = [];
        while (Date.now() < until) {
          started = (await ledger.smembers(`${at}started`)).filter((jid) => mine.has(jid));
          if (started.length > 0) break;
          await sleep(10);
        }
        child.kill("SIGKILL");
        await exited;
        const ended = new Set(await ledger.smembers(`${at}ended`));
        result.runningAtDeath += started.filter((jid) => !ended.has(jid)).length;
      }),
    );
    while (Date.now() < until && (await ledger.scard(`${at}ended`)) < all.length) await sleep(50);
    await Promise.all(waiters.slice(KILLED).map(({ exited }) => exited));
    ticking = false;
    await Promise.all(loops);
    const runs = await ledger.hgetall(`${at}runs`);
    const answered = await ledger.hgetall(`${at}answered`);
    for (const [w, jids] of jidsOf.entries()) {
      for (const [n, jid] of jids.entries()) {
        const value = JSON.stringify({ jid, n });
        if (runs[jid] !== "1") result.ranOtherThanOnce.push(`${jid} ran ${runs[jid] ?? 0} times`);
        if (w >= KILLED) {
          if (answered[jid] === value) result.liveAnswered++;
          continue;
        }
        const read = await tq.jobs.result(jid);
        if (read.state !== "succeeded" || JSON.stringify(read.value) !== value)
          result.unreadable.push(`${jid}: ${JSON.stringify(read)}`);
        const ttl = await admin.pttl(`${prefix}result:${jid}`);
        if (ttl <= 0 || ttl > RESULT_TTL_MS) result.badExpiry.push(`${jid}: PTTL ${ttl}`);
      }
    }
    result.problems.push(...problemsOf(checks, result));
    return result;
  } finally {
    ticking = false;
    for (const { child } of waiters) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await Promise.all(waiters.map(({ exited }) => exited));
    await Promise.all(loops);
    opened.close();
    await rest?.close();
    await deleteUnder(admin, prefix);
    await deleteUnder(ledger, at);
    admin.disconnect();
    ledger.disconnect();
  }
}

export const waiterPhase: ChaosPhase = {
  name: "waiters",
  async run(ctx): Promise<Column> {
    return columnOf(`waiters ${ctx.adapter}`, checks, await runWaiterPhase(ctx));
  },
};
