// One cluster chaos worker (spawned by bench/chaos/cluster-phase.ts): ticks
// nonstop with short leases until told to stop (IPC "stop") or killed, over
// the private cluster named in CLUSTER_CLIENT / CLUSTER_SEEDS /
// CLUSTER_PARTITIONS, with `durability: { replicas: 1 }` when
// CLUSTER_DURABILITY=1. Its handlers record every run in the ledgers
// (LEDGER_URL, LEDGER_PREFIX), on a Redis that is never faulted. A tick that
// fails (a master dead, a failover under way, a connection killed) is simply
// followed by the next one.
import { createTickq } from "../src/index.js";
import { clusterFromEnv, layoutOptions, openCluster } from "./chaos/cluster-connect.js";
import { chaosJobs } from "./chaos/jobs.js";
import { openLedger } from "./chaos/ledger.js";
import { openOrderedLedger, orderedChaosJobs } from "./chaos/ordered-jobs.js";
import { quietLogger, runChaosWorker } from "./chaos/worker-loop.js";

const env = process.env;

const ledgerUrl = env.LEDGER_URL ?? "redis://127.0.0.1:6379";
const ledgerPrefix = env.LEDGER_PREFIX ?? "tickq-chaos-cluster:";
const ledger = openLedger(ledgerUrl, ledgerPrefix);
const orderedLedger = openOrderedLedger(ledgerUrl, `${ledgerPrefix}ordered:`);
const endpoint = clusterFromEnv(env);
const { adapter } = await openCluster(endpoint);
const tq = createTickq({
  redis: adapter,
  ...layoutOptions(endpoint.partitions),
  jobs: chaosJobs(ledger),
  ordered: orderedChaosJobs(orderedLedger, 0.05),
  maxResurrections: 1_000,
  redisTimeoutMs: 3_000,
  ...(env.CLUSTER_DURABILITY === "1" ? { durability: { replicas: 1, timeoutMs: 1_000 } } : {}),
  logger: quietLogger,
});
await runChaosWorker("chaos-cluster-worker", tq, () => {
  ledger.close();
  orderedLedger.close();
});
