// The poison phase of the fault suite, over one adapter: jobs whose handler
// SIGKILLs its own tick (one plain, one flow-controlled, one ordered id)
// among ordinary ones, run by worker processes with tickq's defaults
// (batch, concurrency, maxResurrections). Dead workers are replaced. Holds
// when each poison job, and only it, ends dead; every other job finished,
// none ran more than twice (once more after a death at most) besides runs whose signal aborted
// while they ran (a lease in doubt, the deadline: the job may run again after each), and
// `stats().processed` counts exactly the jobs that ran to an end.
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { startUpstashLocal, type UpstashLocalServer } from "../../tools/upstash-local/server.js";
import { createTickq } from "../../src/index.js";
import { columnOf, mustBeZero, mustMatch, problemsOf, type Check } from "./checks.js";
import { endpointEnv, type AdapterName, type Endpoint } from "./connect.js";
import type { ChaosPhase, PhaseContext } from "./phase-types.js";
import { poisonPhaseJobs } from "./poison-worker.js";
import type { Rng } from "./rng.js";
import { deleteUnder, settle } from "./settle.js";
import { startWorkers } from "./workers.js";

const WORKER = fileURLToPath(new URL("./poison-worker.ts", import.meta.url));
const POISON = ["poison-plain", "poison-flow", "poison-ordered"];

/** Ordinary jobs of the phase: 80 % plain, 10 % flow-controlled, 10 % ordered ids. */
const JOBS = 400;

export interface PoisonPhaseResult {
  adapter: AdapterName;
  jobs: number;
  poison: number;
  /** Processes the poison jobs killed (the workers that died). */
  tickDeaths: number;
  poisonDead: number;
  innocentDead: number;
  innocentLost: number;
  ranMoreThanTwice: number;
  processed: number;
  settled: boolean;
  seconds: number;
  problems: string[];
  workerStderr: string[];
}

const CHECKS: Check<PoisonPhaseResult>[] = [
  { label: "poison phase: jobs (+ poison jobs)", value: (r) => `${r.jobs} (+${r.poison})` },
  { label: "ticks killed by a poison job", value: (r) => r.tickDeaths },
  mustMatch(
    "poison jobs dead / poison jobs",
    (r) => r.poisonDead,
    (r) => r.poison,
    "each poison job ends dead",
  ),
  mustBeZero("innocent jobs dead", (r) => r.innocentDead),
  mustBeZero("innocent jobs never finished", (r) => r.innocentLost),
  mustBeZero("innocent jobs run more than twice (runs aborted by their tick aside)", (r) => r.ranMoreThanTwice),
  mustMatch(
    "processed: stats() / innocent jobs",
    (r) => r.processed,
    (r) => r.jobs,
    "processed counts the jobs that ran to an end",
  ),
  {
    label: "poison phase settled",
    value: (r) => (r.settled ? "yes" : "no"),
    problem: (r) => (r.settled ? undefined : "poison phase: work was still left when it stopped"),
  },
];

export const poisonPhase: ChaosPhase = {
  name: "poison",
  async run(ctx) {
    const result = await runPoisonPhase(ctx);
    result.problems.push(...problemsOf(CHECKS, result));
    return columnOf(`poison ${ctx.adapter}`, CHECKS, result);
  },
};

async function runPoisonPhase(o: PhaseContext): Promise<PoisonPhaseResult> {
  const started = Date.now();
  const prefix = `chaos-poison:${o.runId}:${o.adapter}:`;
  const ledgerPrefix = `tickq-chaos-poison:${o.runId}:${o.adapter}:`;
  const ledger = new Redis(o.ledgerUrl);
  const admin = new Redis(o.redis.url);
  const quiet = { info: () => {}, warn: () => {}, error: () => {} };
  const tq = createTickq({ redis: ioredisAdapter(admin), prefix, ...poisonPhaseJobs, logger: quiet });
  let rest: UpstashLocalServer | undefined;
  let endpoint: Endpoint = { adapter: "ioredis", url: o.redis.url };
  if (o.adapter === "upstash") {
    rest = await startUpstashLocal({ redisUrl: o.redis.url, token: `chaos-${o.runId}` });
    endpoint = { adapter: "upstash", url: rest.url, token: rest.token };
  }
  const innocent = await enqueue(tq, JOBS, o.rng);
  const workers = startWorkers(
    o.workers,
    {
      ...endpointEnv(endpoint),
      PREFIX: prefix,
      LEDGER_URL: o.ledgerUrl,
      LEDGER_PREFIX: ledgerPrefix,
      LEASE_MS: String(o.leaseMs),
      BUDGET_MS: String(o.budgetMs),
    },
    WORKER,
  );
  try {
    o.log(`${o.adapter}: poison phase, ${innocent.length} jobs and ${POISON.length} poison jobs`);
    // Every death waits out a lease and a new worker's start: more than the faulted phases need.
    const { settled } = await settle(tq, {
      stallMs: o.settleSeconds * 1000,
      capMs: Math.max(o.settleSeconds, 180) * 1000,
      leaseMs: o.leaseMs,
    });
    await workers.stop(o.budgetMs + 3_000);
    const dead = [
      ...(await admin.zrange(`${prefix}dead`, "0", "-1")),
      ...(await admin.zrange(`${prefix}o:item:dead`, "0", "-1")),
    ];
    const runs = await ledger.hgetall(`${ledgerPrefix}runs`);
    const stopped = await ledger.hgetall(`${ledgerPrefix}stopped`);
    const overRun = innocent.filter((id) => Number(runs[id] ?? 0) > 2 + Number(stopped[id] ?? 0));
    const finished = new Set(await ledger.smembers(`${ledgerPrefix}finished`));
    const stats = await tq.stats();
    const isPoison = (entry: string) => POISON.some((id) => entry.includes(`"${id}"`));
    const result: PoisonPhaseResult = {
      adapter: o.adapter,
      jobs: innocent.length,
      poison: POISON.length,
      tickDeaths: workers.crashes(),
      poisonDead: dead.filter((entry) => isPoison(entry) && entry.includes("TickqPoisonJob")).length,
      innocentDead: dead.filter((entry) => !isPoison(entry)).length,
      innocentLost: innocent.filter((id) => !finished.has(id)).length,
      ranMoreThanTwice: overRun.length,
      processed: stats.processed,
      settled,
      seconds: Math.round((Date.now() - started) / 1000),
      // Which, and how often, so that a failure can be told apart from a stop the ledger missed.
      problems: overRun.map(
        (id) => `poison phase: ${id} ran ${runs[id]} times, ${stopped[id] ?? 0} of them aborted by its tick`,
      ),
      workerStderr: workers.stderr(),
    };
    return result;
  } finally {
    await workers.stop(1_000);
    await rest?.close();
    await deleteUnder(admin, prefix);
    await deleteUnder(ledger, ledgerPrefix);
    admin.disconnect();
    ledger.disconnect();
  }
}

/** Enqueues the ordinary jobs with the poison ones at random places; returns the ordinary jobs' ids. */
async function enqueue(
  tq: ReturnType<typeof createTickq<typeof poisonPhaseJobs.jobs, typeof poisonPhaseJobs.ordered>>,
  jobs: number,
  rng: Rng,
): Promise<string[]> {
  const flows = Math.max(1, Math.floor(jobs / 10));
  const ordered = Math.max(1, Math.floor(jobs / 10));
  const plain = Math.max(1, jobs - flows - ordered);
  const withPoison = (ids: string[], poison: string) => {
    const at = Math.floor(rng() * (ids.length + 1));
    return [...ids.slice(0, at), poison, ...ids.slice(at)];
  };
  const plainIds = Array.from({ length: plain }, (_, i) => `p${i}`);
  const flowIds = Array.from({ length: flows }, (_, i) => `f${i}`);
  const orderedIds = Array.from({ length: ordered }, (_, i) => `o${i}`);
  const plainAll = withPoison(plainIds, "poison-plain");
  for (let i = 0; i < plainAll.length; i += 500) {
    await tq.enqueueBulk(plainAll.slice(i, i + 500).map((id) => ({ name: "plain" as const, args: [id] as [string] })));
  }
  for (const id of withPoison(flowIds, "poison-flow")) await tq.enqueue("limited", [id]);
  for (const id of withPoison(orderedIds, "poison-ordered"))
    await tq.enqueueOrdered("item", { id, payload: 1, score: 1 });
  return [...plainIds, ...flowIds, ...orderedIds];
}
