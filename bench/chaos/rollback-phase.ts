// The rollback phase of the fault suite, over one adapter: a Redis of its own
// with `appendfsync everysec` is rolled back a few times while worker
// processes tick and the driver sends plain jobs, jobs of one
// concurrency-limit-1 key, until-executed jobs, ordered payloads and workflow
// runs (bench/chaos/rollback-plan.ts): SIGKILL with writes in flight, the AOF
// cut back to what a crash would have left (at most the last second,
// bench/chaos/rollback-redis.ts), restart. Then the workers tick until every
// job, payload and run is done. Judged (bench/chaos/rollback-judge.ts): no
// write acknowledged before a rollback's kept moment is lost (an enqueue
// gone, an ack undone), no fence below one seen before in its scope, no two
// executions of one limit-1 key, unique key, ordered id or run at once, and
// everything still in Redis completes. What ran again is reported.
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { startUpstashLocal, type UpstashLocalServer } from "../../tools/upstash-local/server.js";
import type { Column } from "./checks.js";
import { endpointEnv, openEndpoint, type Endpoint } from "./connect.js";
import { overlapDetector } from "./overlap.js";
import type { ChaosPhase, PhaseContext } from "./phase-types.js";
import { between, sleep } from "./rng.js";
import { openRollbackLedger, ROLLBACK_STEPS, rollbackTickq, type RollbackTickq } from "./rollback-jobs.js";
import { ROLLBACK_TICK, rollbackColumn, type UnitHistory } from "./rollback-judge.js";
import { planSends, sendAll, type Send } from "./rollback-plan.js";
import { startRollbackRedis, type Rollback } from "./rollback-redis.js";
import { whereabouts } from "./rollback-whereabouts.js";
import { deleteUnder, settle, settleLimits } from "./settle.js";
import { locateJobs } from "./verify.js";
import { startWorkers } from "./workers.js";

const WORKER = fileURLToPath(new URL("./rollback-worker.ts", import.meta.url));
/** Rollbacks of a run: a few, whatever --faults-per-kind asks (each costs a restart and its settling). */
const rollbacksFor = (perKind: number) => Math.max(2, Math.min(3, perKind));
/** The window the sends are spread over and the rollbacks fall in. */
const WINDOW_MS = 15_000;
/** The most a rollback forgets: `appendfsync everysec` fsyncs once a second. */
const MAX_LOSS_MS = 1_000;

export const rollbackPhase: ChaosPhase = {
  name: "rollback",
  run: (ctx) => runRollbackPhase(ctx),
};

/** Rolls Redis back `count` times over the window, each at a random moment of its share. */
async function rollAtRandom(
  ctx: PhaseContext,
  roll: (lossMs: number) => Promise<Rollback>,
  count: number,
): Promise<Rollback[]> {
  const done: Rollback[] = [];
  const share = WINDOW_MS / count;
  const started = Date.now();
  for (let k = 0; k < count; k++) {
    const at = started + k * share + between(ctx.rng, Math.floor(share * 0.3), Math.floor(share * 0.9));
    await sleep(Math.max(0, at - Date.now()));
    ctx.log(`${ctx.adapter} rollback: kill ${k + 1}`);
    done.push(await roll(between(ctx.rng, MAX_LOSS_MS / 2, MAX_LOSS_MS)));
  }
  return done;
}

/** Each unit's history on the ledger: "s:T", "e:T", "a:U:E" (bench/chaos/rollback-jobs.ts). */
async function histories(ledger: Redis, at: string, units: string[]): Promise<Map<string, UnitHistory>> {
  const out = new Map<string, UnitHistory>();
  for (const unit of units) {
    const h: UnitHistory = { starts: [], successes: [] };
    for (const entry of await ledger.lrange(`${at}h:${unit}`, 0, -1)) {
      const [kind, a, b] = entry.split(":");
      if (kind === "s") h.starts.push(Number(a));
      if (kind === "e") h.successes.push({ endedAt: Number(a) });
      if (kind === "a") {
        const success = h.successes.find((s) => s.endedAt === Number(b) && s.ackedBy === undefined);
        if (success) success.ackedBy = Number(a);
      }
    }
    if (h.starts.length > 0) out.set(unit, h);
  }
  return out;
}

/**
 * A read of the driver's tickq (redisTimeoutMs 300), sent again on an error: at load a reply can take longer,
 * and a read changes nothing (one that threw ended the phase with no verdict).
 */
async function read<T>(get: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await get();
    } catch (error) {
      if (attempt >= 20) throw error;
      await sleep(100);
    }
  }
}

/** What is done and what is left in Redis, per unit. */
async function outcomes(tq: RollbackTickq, admin: Redis, prefix: string, sends: Send[], h: Map<string, UnitHistory>) {
  const completed = new Set<string>();
  const present = new Map<string, string>();
  const places = await locateJobs(admin, prefix);
  const stats = await read(() => tq.stats());
  const orderedLeft = Object.values(stats.ordered).reduce((a, x) => a + x.waiting + x.running, 0);
  for (const s of sends) {
    if (s.kind === "run") {
      const run = await read(() => tq.workflows.get(s.unit));
      if (run?.status === "completed") completed.add(s.unit);
      else if (run) present.set(s.unit, `run ${run.status}`);
      continue;
    }
    if ((h.get(s.unit)?.successes.length ?? 0) > 0) completed.add(s.unit);
    else if (places.has(s.unit)) present.set(s.unit, places.get(s.unit)!.join(", "));
    else if (s.kind === "ordered" && orderedLeft > 0) present.set(s.unit, `ordered: ${orderedLeft} payloads left`);
  }
  return { completed, present };
}

async function runRollbackPhase(ctx: PhaseContext): Promise<Column> {
  const started = Date.now();
  const prefix = `chaos-rb:${ctx.runId}:${ctx.adapter}:`;
  const at = `tickq-chaos-rb:${ctx.runId}:${ctx.adapter}:`;
  const server = await startRollbackRedis();
  const ledger = new Redis(ctx.ledgerUrl, { maxRetriesPerRequest: null });
  const admin = new Redis(server.redis.url, { maxRetriesPerRequest: null });
  admin.on("error", () => {});
  let rest: UpstashLocalServer | undefined;
  let endpoint: Endpoint = { adapter: "ioredis", url: server.redis.url };
  if (ctx.adapter === "upstash") {
    rest = await startUpstashLocal({ redisUrl: server.redis.url, token: `chaos-rb-${ctx.runId}` });
    endpoint = { adapter: "upstash", url: rest.url, token: rest.token };
  }
  const opened = openEndpoint(endpoint);
  // The driver only sends: its handlers never run, so its ledger is never written.
  const unused = openRollbackLedger(ledger, at, () => []);
  const tq = rollbackTickq(opened.adapter, prefix, unused, 300);
  const workers = startWorkers(
    ctx.workers,
    {
      ...endpointEnv(endpoint),
      PREFIX: prefix,
      LEDGER_URL: ctx.ledgerUrl,
      LEDGER_PREFIX: at,
      LEASE_MS: String(ROLLBACK_TICK.leaseMs),
      BUDGET_MS: String(ROLLBACK_TICK.budgetMs),
    },
    WORKER,
  );
  try {
    const sends = planSends(ctx.rng);
    const asked = rollbacksFor(ctx.perKind);
    ctx.log(`${ctx.adapter}: rollback phase, ${sends.length} sends, ${asked} rollbacks`);
    const [sent, rollbacks] = await Promise.all([
      sendAll(tq, sends, WINDOW_MS),
      rollAtRandom(ctx, (lossMs) => server.rollback(lossMs), asked),
    ]);
    ctx.log(`${ctx.adapter}: rollbacks over, settling`);
    const settled = await settle(tq, settleLimits(ctx.settleSeconds, ROLLBACK_TICK.leaseMs));
    ctx.log(`${ctx.adapter}: jobs settled in ${settled.seconds} s${settled.why ? ` (${settled.why})` : ""}, runs next`);
    const runs = sends.filter((s) => s.kind === "run").map((s) => s.unit);
    const deadline = Date.now() + ctx.settleSeconds * 1000;
    // A run whose start a rollback forgot is gone (null): nothing is left of it to end.
    const ended = async () => {
      for (const id of runs) {
        const status = (await tq.workflows.get(id))?.status;
        if (status !== undefined && status !== "completed" && status !== "failed") return false;
      }
      return true;
    };
    while (Date.now() < deadline && !(await ended().catch(() => false))) await sleep(250);
    await workers.stop(3_000);
    const units = sends.flatMap((s) => (s.kind === "run" ? ROLLBACK_STEPS.map((n) => `${s.unit}:${n}`) : [s.unit]));
    const h = await histories(ledger, at, units);
    const { completed, present } = await outcomes(tq, admin, prefix, sends, h);
    const evidence = {
      rollbacks,
      enqueued: sent.acked,
      sent: sent.sentAt,
      attempts: sent.attempts,
      histories: h,
      completed,
      present,
      whereabouts: await whereabouts(admin, prefix, sends, completed, present),
      backwards: await ledger.lrange(`${at}backwards`, 0, -1),
      overlaps: (await overlapDetector(ledger, `${at}ov:`).read()).overlaps,
      uncommitted: {
        steps: Number(await ledger.get(`${at}uncommitted`)),
        unexplained: await ledger.lrange(`${at}unexplained`, 0, -1),
      },
    };
    return rollbackColumn(ctx.adapter, asked, evidence, {
      units: {
        jobs: sends.filter((s) => s.kind !== "ordered" && s.kind !== "run").length,
        payloads: sends.filter((s) => s.kind === "ordered").length,
        runs: runs.length,
        merged: sent.merged.size,
      },
      seconds: Math.round((Date.now() - started) / 1000),
      workerStderr: workers.stderr(),
    });
  } finally {
    await workers.stop(1_000);
    opened.close();
    await rest?.close();
    await deleteUnder(ledger, at);
    admin.disconnect();
    ledger.disconnect();
    await server.stop();
  }
}
