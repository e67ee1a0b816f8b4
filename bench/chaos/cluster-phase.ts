// The cluster phase: a private Redis Cluster of 3 masters with a replica
// each (bench/chaos/private-cluster.ts, cluster-node-timeout 1 s, AOF
// fsynced on every write), tick workers in child processes
// (bench/chaos-cluster-worker.ts) and an enqueuer, all through one cluster
// client (ioredis' Cluster or node-redis' createCluster), tickq's keys under
// one hash tag or in `partitions: N`. Faults, in turn:
//   master kill   the master serving tickq's slot (with one hash tag; any
//                 master with partitions) SIGKILLed; the cluster promotes its
//                 replica; the dead node is started again and rejoins as a
//                 replica; the next fault waits until every master has a
//                 replica in sync again
//   client kill   CLIENT KILL TYPE normal on every master: every client
//                 connection cut at once (the cluster bus is not a client)
//   tick kill     a worker process SIGKILLed and replaced
// Jobs: plain ones, while-executing unique keys (5 keys) and a concurrency
// limit of 2 on one key (bench/chaos/jobs.ts), and ordered payloads over a
// few ids (bench/chaos/ordered-jobs.ts). Judged from the ledgers, on a Redis
// that is never faulted: no acknowledged job or payload lost, no key or id
// run by more holders than its limit at once, no fence that failed to grow.
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { createTickq } from "../../src/index.js";
import { columnOf, mustBeZero, problemsOf, type Check, type Column } from "./checks.js";
import { clusterEnv, layoutOptions, openCluster, TAG_SLOT, type ClusterClientName } from "./cluster-connect.js";
import { trickle as trickleJobs } from "./enqueue.js";
import { chaosJobs, KEY_LIMITS, type JobKind, type PlannedJob } from "./jobs.js";
import { idOf, openLedger } from "./ledger.js";
import { openOrderedLedger, orderedChaosJobs, planPayloads, type PlannedPayload } from "./ordered-jobs.js";
import { startPrivateRedisCluster, type PrivateRedisCluster } from "./private-cluster.js";
import { between, seededRng, sleep, type Rng } from "./rng.js";
import { startWorkers } from "./workers.js";

const WORKER = fileURLToPath(new URL("../chaos-cluster-worker.ts", import.meta.url));

export interface ClusterPhaseOptions {
  client: ClusterClientName;
  /** 1: one hash tag; N > 1: `partitions: N`. */
  partitions: number;
  jobs: number;
  orderedPayloads: number;
  ids: number;
  workers: number;
  /** Faults of each kind: master kills, client kills, tick kills. */
  faultsPerKind: number;
  /** `durability: { replicas: 1 }` on every tickq of the phase. */
  durability: boolean;
  ledgerUrl: string;
  runId: string;
  settleSeconds: number;
  seed: number;
  log?: (line: string) => void;
}

export interface ClusterPhaseResult {
  client: ClusterClientName;
  partitions: number;
  durability: boolean;
  jobs: number;
  payloads: number;
  faults: { masterKills: number; promoted: number; clientKills: number; tickKills: number };
  faultsAsked: number;
  enqueueRetries: number;
  lost: string[];
  payloadsLost: string[];
  overlaps: string[];
  staleFences: string[];
  succeededRuns: number;
  processed: number;
  workerCrashes: number;
  seconds: number;
  problems: string[];
  workerStderr: string[];
}

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** Plain jobs (60 %), while-executing over 5 keys (20 %), a concurrency limit of 2 on one key (20 %). */
function planJobs(count: number, rng: Rng, tag: string): PlannedJob[] {
  return Array.from({ length: count }, (_, i) => {
    const r = rng();
    const kind: JobKind = r < 0.6 ? "plain" : r < 0.8 ? "exclusive" : "limited";
    const id = `${tag}-${kind}-${i}`;
    const key = kind === "plain" ? "" : kind === "exclusive" ? `${tag}-x${between(rng, 0, 4)}` : `${tag}-limited`;
    return {
      id,
      kind,
      args: [id, between(rng, 0, 20), 0, key],
      attempts: 1,
      ...(kind === "exclusive" ? { unique: "while-executing" as const } : {}),
    };
  });
}

/** CLIENT KILL TYPE normal on every live master; the number of connections cut. */
async function killClients(cluster: PrivateRedisCluster): Promise<number> {
  let cut = 0;
  for (const m of await cluster.masters()) {
    const admin = new Redis({ port: m.port, host: "127.0.0.1", maxRetriesPerRequest: 0, lazyConnect: true });
    admin.on("error", () => {});
    try {
      await admin.connect();
      cut += Number(await admin.call("CLIENT", "KILL", "TYPE", "normal"));
    } catch {
      // a master that just died: the next fault finds the new one
    } finally {
      admin.disconnect();
    }
  }
  return cut;
}

/** SIGKILLs a master (tickq's with one tag), waits for its replica's promotion, starts it again, waits for the cluster to settle. */
async function killMaster(cluster: PrivateRedisCluster, partitions: number, rng: Rng): Promise<boolean> {
  const masters = await cluster.masters();
  const pick = partitions > 1 ? masters[between(rng, 0, masters.length - 1)] : undefined;
  const slot = pick ? pick.slots[0]![0] : TAG_SLOT;
  const victim = await cluster.masterOf(slot);
  if (!victim) return false;
  await victim.kill();
  let promoted = false;
  for (const until = Date.now() + 20_000; Date.now() < until && !promoted; ) {
    const now = await cluster.masterOf(slot);
    promoted = now !== undefined && now.port !== victim.port;
    if (!promoted) await sleep(100);
  }
  await victim.start();
  if (!(await cluster.settled(30_000))) throw new Error("chaos: the cluster did not settle after a master kill");
  return promoted;
}

/** A read right after the last fault may meet a node still catching up: asked again for up to 15 s. */
async function untilAnswered<T>(read: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await read();
    } catch (error) {
      if (tries >= 30) throw error;
      await sleep(500);
    }
  }
}

export async function runClusterPhase(o: ClusterPhaseOptions): Promise<ClusterPhaseResult> {
  const started = Date.now();
  const rng = seededRng(o.seed);
  const log = o.log ?? (() => {});
  const name = `${o.client}-${o.partitions}`;
  const ledgerPrefix = `tickq-chaos-cluster:${o.runId}:${name}:`;
  const ledger = openLedger(o.ledgerUrl, ledgerPrefix);
  const orderedLedger = openOrderedLedger(o.ledgerUrl, `${ledgerPrefix}ordered:`);
  const cluster = await startPrivateRedisCluster({ masters: 3, replicas: 1, nodeTimeoutMs: 1_000, durable: true });
  const endpoint = { client: o.client, seeds: cluster.seeds, partitions: o.partitions };
  const driver = await openCluster(endpoint);
  const tq = createTickq({
    redis: driver.adapter,
    ...layoutOptions(o.partitions),
    jobs: chaosJobs(ledger),
    ordered: orderedChaosJobs(orderedLedger),
    redisTimeoutMs: 3_000,
    ...(o.durability ? { durability: { replicas: 1, timeoutMs: 1_000 } } : {}),
    logger: quiet,
  });
  const workers = startWorkers(
    o.workers,
    {
      ...clusterEnv(endpoint),
      LEDGER_URL: o.ledgerUrl,
      LEDGER_PREFIX: ledgerPrefix,
      CLUSTER_DURABILITY: o.durability ? "1" : "0",
    },
    WORKER,
  );
  const faults = { masterKills: 0, promoted: 0, clientKills: 0, tickKills: 0 };
  let enqueueRetries = 0;
  try {
    const plan = planJobs(o.jobs, rng, `c${o.runId}`);
    const payloads: PlannedPayload[] = planPayloads(o.orderedPayloads, o.ids, rng, `o${o.runId}`);
    const windowMs = Math.max(5_000, o.faultsPerKind * 4_000);
    const enqueueing = (async () => {
      const report = await trickleJobs(tq, plan, windowMs, rng);
      enqueueRetries += report.retries;
      for (let i = 0; i < payloads.length; i += 50) {
        const chunk = payloads.slice(i, i + 50);
        for (;;) {
          try {
            await tq.enqueueOrderedBulk(
              chunk.map((p) => ({ name: "chaosOrdered" as const, id: p.id, payload: { n: p.n }, score: p.n })),
            );
            break;
          } catch {
            enqueueRetries++;
            await sleep(100);
          }
        }
      }
    })();

    for (let f = 0; f < o.faultsPerKind; f++) {
      await sleep(between(rng, 300, 1_000));
      log(`cluster ${name}: master kill ${f + 1}/${o.faultsPerKind}`);
      faults.masterKills++;
      if (await killMaster(cluster, o.partitions, rng)) faults.promoted++;
      await sleep(between(rng, 200, 600));
      log(`cluster ${name}: client kill ${f + 1}/${o.faultsPerKind}`);
      if ((await killClients(cluster)) > 0) faults.clientKills++;
      await sleep(between(rng, 200, 600));
      log(`cluster ${name}: tick kill ${f + 1}/${o.faultsPerKind}`);
      if (workers.killOne(rng)) faults.tickKills++;
    }
    await enqueueing;

    const plainIds = new Set(plan.map((j) => j.id));
    const wanted = new Set(payloads.map((p) => p.n));
    const remaining = async () => {
      const [view, ordered] = await Promise.all([ledger.read(), orderedLedger.read()]);
      const done = new Set([...view.ok.keys()].map(idOf));
      return {
        view,
        ordered,
        lost: [...plainIds].filter((id) => !done.has(id)),
        payloadsLost: [...wanted].filter((n) => !ordered.seen.has(n)).map(String),
      };
    };
    let state = await remaining();
    for (const until = Date.now() + o.settleSeconds * 1_000; Date.now() < until; state = await remaining()) {
      if (state.lost.length === 0 && state.payloadsLost.length === 0) break;
      log(`cluster ${name}: waiting for ${state.lost.length} jobs, ${state.payloadsLost.length} payloads`);
      await sleep(500);
    }
    await workers.stop(10_000);
    const stats = await untilAnswered(() => tq.stats());
    const result: ClusterPhaseResult = {
      client: o.client,
      partitions: o.partitions,
      durability: o.durability,
      jobs: plan.length,
      payloads: payloads.length,
      faults,
      faultsAsked: o.faultsPerKind,
      enqueueRetries,
      lost: state.lost,
      payloadsLost: state.payloadsLost,
      overlaps: [...state.view.overlaps, ...state.ordered.overlaps],
      staleFences: state.ordered.stale,
      succeededRuns: [...state.view.ok.values()].reduce((a, b) => a + b, 0),
      processed: stats.processed,
      workerCrashes: workers.crashes(),
      seconds: Math.round((Date.now() - started) / 1_000),
      problems: [],
      workerStderr: workers.stderr().slice(-10),
    };
    result.problems = problemsOf(CLUSTER_CHECKS, result);
    return result;
  } finally {
    await workers.stop(5_000);
    driver.close();
    await ledger.clear().catch(() => {});
    await orderedLedger.clear().catch(() => {});
    ledger.close();
    orderedLedger.close();
    await cluster.stop();
  }
}

const atLeastAsked =
  (label: string, get: (r: ClusterPhaseResult) => number) =>
  (r: ClusterPhaseResult): string | undefined =>
    get(r) >= r.faultsAsked ? undefined : `faults: ${label} ${get(r)} of the ${r.faultsAsked} asked`;

/** The rows of a cluster phase's column; every one with a `problem` fails the phase when its figure breaks it. */
export const CLUSTER_CHECKS: Check<ClusterPhaseResult>[] = [
  { label: "cluster client", value: (r) => r.client },
  { label: "key layout", value: (r) => (r.partitions > 1 ? `partitions: ${r.partitions}` : "one hash tag") },
  {
    label: "durability",
    value: (r) => (r.durability ? "replicas: 1" : r.client === "node-redis" ? "off (refused)" : "off"),
  },
  { label: "jobs / ordered payloads", value: (r) => `${r.jobs} / ${r.payloads}` },
  {
    label: "faults: masters SIGKILLed / replicas promoted",
    value: (r) => `${r.faults.masterKills} / ${r.faults.promoted}`,
    problem: atLeastAsked("replicas promoted", (r) => r.faults.promoted),
  },
  {
    label: "faults: CLIENT KILL on every master",
    value: (r) => r.faults.clientKills,
    problem: atLeastAsked("client kills", (r) => r.faults.clientKills),
  },
  {
    label: "faults: tick processes SIGKILLed",
    value: (r) => r.faults.tickKills,
    problem: atLeastAsked("tick kills", (r) => r.faults.tickKills),
  },
  { label: "enqueue calls sent again", value: (r) => r.enqueueRetries },
  mustBeZero(
    "lost jobs",
    (r) => r.lost.length,
    (r) => r.lost,
  ),
  mustBeZero(
    "lost payloads",
    (r) => r.payloadsLost.length,
    (r) => r.payloadsLost,
  ),
  mustBeZero(
    `overlaps (unique keys ≤ ${KEY_LIMITS.exclusive}, concurrency key ≤ ${KEY_LIMITS.limited}, ordered ids ≤ 1)`,
    (r) => r.overlaps.length,
    (r) => r.overlaps,
  ),
  mustBeZero(
    "fences that did not grow",
    (r) => r.staleFences.length,
    (r) => r.staleFences,
  ),
  // A job whose ack was cut off (a tick killed, a master failed over) runs again: more runs than jobs is no loss.
  {
    label: "processed: stats() (jobs, ordered runs) / job runs that succeeded (ledger)",
    value: (r) => `${r.processed} / ${r.succeededRuns}`,
  },
  { label: "worker crashes", value: (r) => r.workerCrashes },
  { label: "seconds", value: (r) => r.seconds },
];

export function clusterColumn(r: ClusterPhaseResult): Column {
  const name = `cluster ${r.client}${r.partitions > 1 ? ` ×${r.partitions}` : ""}`;
  return columnOf(name, CLUSTER_CHECKS, r);
}
