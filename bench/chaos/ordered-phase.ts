// One ordered phase of the chaos run, over one adapter, on the same kind of
// faulted private Redis as the plain phases (bench/chaos/phase.ts): the drop
// proxies, ordered workers (bench/chaos-ordered-worker.ts), an enqueuer
// trickling numbered payloads over a few ids, and the fault injector at
// once; then the workers tick until nothing is left, stop, and the phase is
// judged: no payload lost (every one seen by a run that succeeded), no id
// with two live holders at once, no fence that failed to grow, no run whose
// payloads came out of enqueue order, nothing stuck.
import { Redis } from "ioredis";
import { fileURLToPath } from "node:url";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { startUpstashLocal, type UpstashLocalServer } from "../../tools/upstash-local/server.js";
import { createTickq, type Tickq } from "../../src/index.js";
import { endpointEnv, openEndpoint, type AdapterName, type Endpoint } from "./connect.js";
import { startDropProxy } from "./drop-proxy.js";
import { faultChecks, mustBeZero, problemsOf, type Check } from "./checks.js";
import { faultsFor, injectFaults, type FaultCounts } from "./faults.js";
import { startHttpDropProxy, type HttpDropProxy } from "./http-drop-proxy.js";
import {
  openOrderedLedger,
  orderedChaosJobs,
  planPayloads,
  plannedScore,
  type PlannedPayload,
} from "./ordered-jobs.js";
import type { PhaseContext } from "./phase-types.js";
import { between, sleep, type Rng } from "./rng.js";
import { startWorkers } from "./workers.js";

const WORKER = fileURLToPath(new URL("../chaos-ordered-worker.ts", import.meta.url));
const NAME = "chaosOrdered";

/** A chaos phase's context, and how many payloads over how many ids. */
export interface OrderedPhaseOptions extends PhaseContext {
  payloads: number;
  ids: number;
}

export interface OrderedPhaseResult {
  adapter: AdapterName;
  payloads: number;
  ids: number;
  seen: number;
  lost: number;
  lostPayloads: string[];
  overlaps: string[];
  staleFences: string[];
  /** Runs whose payloads were not in enqueue order: id and payload numbers. */
  disorder: string[];
  stuck: number;
  dead: number;
  faults: FaultCounts;
  /** Faults of each kind asked of the injector. */
  faultsAsked: number;
  /** Left waiting or running once settling ran out of time, in words. */
  left?: string;
  enqueueRetries: number;
  workerCrashes: number;
  seconds: number;
  problems: string[];
  workerStderr: string[];
}

/** The rows of an ordered phase's table; every one with a `problem` fails the phase when its figure breaks it. */
export const ORDERED_CHECKS: Check<OrderedPhaseResult>[] = [
  { label: "ordered payloads / ids", value: (r) => `${r.payloads} / ${r.ids}` },
  ...faultChecks<OrderedPhaseResult>(),
  { label: "enqueue chunks sent again", value: (r) => r.enqueueRetries },
  { label: "payloads seen by a successful run", value: (r) => r.seen },
  mustBeZero(
    "lost payloads",
    (r) => r.lost,
    (r) => r.lostPayloads,
  ),
  mustBeZero(
    "overlapping runs of an id",
    (r) => r.overlaps.length,
    (r) => r.overlaps,
  ),
  mustBeZero(
    "fences that did not grow",
    (r) => r.staleFences.length,
    (r) => r.staleFences,
  ),
  mustBeZero(
    "runs with payloads out of enqueue order",
    (r) => r.disorder.length,
    (r) => r.disorder,
  ),
  { label: "left waiting or running (must be 0)", value: (r) => r.stuck, problem: (r) => r.left },
  mustBeZero("ids dead (retries are unlimited)", (r) => r.dead),
  { label: "worker crashes", value: (r) => r.workerCrashes },
  { label: "seconds", value: (r) => r.seconds },
];

type OrderedTickq = Tickq<Record<never, never>, ReturnType<typeof orderedChaosJobs>>;

/** Sends the payloads in chunks spread over the window; a chunk that fails is sent again (an identical waiting payload is stored once). */
async function trickle(tq: OrderedTickq, plan: PlannedPayload[], windowMs: number, rng: Rng): Promise<number> {
  let retries = 0;
  const chunks: PlannedPayload[][] = [];
  for (let i = 0; i < plan.length; ) {
    const size = between(rng, 10, 150);
    chunks.push(plan.slice(i, i + size));
    i += size;
  }
  const started = Date.now();
  for (const [k, chunk] of chunks.entries()) {
    const wait = started + (k * windowMs) / chunks.length - Date.now();
    if (wait > 0) await sleep(wait);
    for (;;) {
      try {
        await tq.enqueueOrderedBulk(
          chunk.map((p) => ({ name: NAME, id: p.id, payload: { n: p.n }, ...plannedScore(p) })),
        );
        break;
      } catch (error) {
        if (++retries > 2_000) throw new Error(`chaos: ordered enqueue kept failing: ${(error as Error).message}`);
        await sleep(100);
      }
    }
  }
  return retries;
}

export async function runOrderedPhase(o: OrderedPhaseOptions): Promise<OrderedPhaseResult> {
  const started = Date.now();
  const prefix = `chaos-ordered:${o.runId}:${o.adapter}:`;
  const ledgerPrefix = `tickq-chaos-ordered:${o.runId}:${o.adapter}:`;
  const ledger = openOrderedLedger(o.ledgerUrl, ledgerPrefix);
  const admin = new Redis(o.redis.url, { maxRetriesPerRequest: null });
  admin.on("error", () => {});
  const quiet = { info: () => {}, warn: () => {}, error: () => {} };
  const direct: OrderedTickq = createTickq({
    redis: ioredisAdapter(admin),
    prefix,
    jobs: {},
    ordered: orderedChaosJobs(ledger),
    logger: quiet,
  });
  const tcp = await startDropProxy(o.redis.port);
  let rest: UpstashLocalServer | undefined;
  let http: HttpDropProxy | undefined;
  let endpoint: Endpoint = { adapter: "ioredis", url: tcp.url };
  if (o.adapter === "upstash") {
    rest = await startUpstashLocal({ redisUrl: tcp.url, token: `chaos-${o.runId}` });
    http = await startHttpDropProxy(rest.url);
    endpoint = { adapter: "upstash", url: http.url, token: rest.token };
  }
  const env = {
    ...endpointEnv(endpoint),
    PREFIX: prefix,
    LEDGER_URL: o.ledgerUrl,
    LEDGER_PREFIX: ledgerPrefix,
    LEASE_MS: String(o.leaseMs),
    BUDGET_MS: String(o.budgetMs),
  };
  const workers = startWorkers(o.workers, env, WORKER);
  const enqueuer = openEndpoint(endpoint);
  try {
    const windowMs = o.seconds * 1000;
    const plan = planPayloads(o.payloads, o.ids, o.rng, o.adapter[0]!);
    const tq: OrderedTickq = createTickq({
      redis: enqueuer.adapter,
      prefix,
      jobs: {},
      ordered: orderedChaosJobs(ledger),
      redisTimeoutMs: 300,
      logger: quiet,
    });
    const faults = faultsFor({ admin, redis: o.redis, workers, tcp, http, rng: o.rng });
    const [enqueueRetries, counts] = await Promise.all([
      trickle(tq, plan, windowMs * 0.7, o.rng),
      injectFaults({
        faults,
        perKind: o.perKind,
        windowMs,
        rng: o.rng,
        log: (line) => o.log(`ordered ${o.adapter}: ${line}`),
      }),
    ]);
    o.log(`ordered ${o.adapter}: faults over, settling`);
    const settled = await settle(direct, o.settleSeconds * 1000, o.leaseMs);
    await workers.stop(o.budgetMs + 3_000);
    const stats = (await direct.stats()).ordered[NAME]!;
    const { seen, overlaps, stale, disorder } = await ledger.read();
    const lost = plan.filter((p) => !seen.has(p.n));
    const stuck = stats.waiting + stats.running + stats.payloads;
    const result: OrderedPhaseResult = {
      adapter: o.adapter,
      payloads: plan.length,
      ids: new Set(plan.map((p) => p.id)).size,
      seen: plan.length - lost.length,
      lost: lost.length,
      lostPayloads: lost.map((p) => `${p.id}#${p.n}`),
      overlaps,
      staleFences: stale,
      disorder,
      stuck,
      ...(!settled || stuck > 0
        ? {
            left: `work left after ${o.settleSeconds} s of settling: ${JSON.stringify(stats)}; ${await restartPause(admin, prefix)}`,
          }
        : {}),
      dead: stats.dead,
      faults: counts,
      faultsAsked: o.perKind,
      enqueueRetries,
      workerCrashes: workers.crashes(),
      seconds: Math.round((Date.now() - started) / 1000),
      problems: [],
      workerStderr: workers.stderr(),
    };
    result.problems = problemsOf(ORDERED_CHECKS, result);
    return result;
  } finally {
    await workers.stop(1_000);
    enqueuer.close();
    await http?.close();
    await rest?.close();
    await tcp.close();
    await ledger.clear();
    ledger.close();
    const keys = await admin.keys(`${prefix}*`).catch(() => [] as string[]);
    for (let i = 0; i < keys.length; i += 500) await admin.del(...keys.slice(i, i + 500));
    admin.disconnect();
  }
}

/** The restart pause as Redis holds it (lib/tick/restart-hold.lua), for a phase that left work: a pause that never ends would hold every id. */
async function restartPause(admin: Redis, prefix: string): Promise<string> {
  const boot = await admin.hgetall(`${prefix}boot`).catch(() => ({}) as Record<string, string>);
  const [seconds, micros] = (await admin.time().catch(() => [0, 0])).map(Number) as [number, number];
  const now = seconds * 1000 + Math.floor(micros / 1000);
  const until = Number(boot.at ?? 0) + Number(boot.lease ?? 30_000);
  return boot.run
    ? `restart pause ${until > now ? `ends in ${until - now} ms` : "over"} (${JSON.stringify(boot)})`
    : "no restart record";
}

/** Waits until no id waits or runs, twice a lease apart. */
async function settle(tq: OrderedTickq, timeoutMs: number, leaseMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let idleSince: number | undefined;
  while (Date.now() < deadline) {
    const s = await tq.stats().catch(() => undefined);
    const o = s?.ordered[NAME];
    const work = o ? o.waiting + o.running : 1;
    if (work > 0) idleSince = undefined;
    else if (idleSince === undefined) idleSince = Date.now();
    else if (Date.now() - idleSince >= leaseMs) return true;
    await sleep(200);
  }
  return false;
}
