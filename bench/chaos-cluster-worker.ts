// One cluster chaos worker (spawned by bench/chaos/cluster-phase.ts): ticks
// nonstop with short leases until told to stop (IPC "stop") or killed, over
// the private cluster named in CLUSTER_CLIENT / CLUSTER_SEEDS /
// CLUSTER_PARTITIONS, with `durability: { replicas: 1 }` when
// CLUSTER_DURABILITY=1. Its handlers record every run in the ledgers
// (LEDGER_URL, LEDGER_PREFIX), on a Redis that is never faulted. A tick that
// fails (a master dead, a failover under way, a connection killed) is simply
// followed by the next one.
import { createTickq } from "../src/index.js";
import type { JobLogger } from "../src/types.js";
import { clusterFromEnv, layoutOptions, openCluster } from "./chaos/cluster-connect.js";
import { chaosJobs } from "./chaos/jobs.js";
import { openLedger } from "./chaos/ledger.js";
import { openOrderedLedger, orderedChaosJobs } from "./chaos/ordered-jobs.js";
import { sleep } from "./chaos/rng.js";

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const quiet: JobLogger = { info: () => {}, warn: () => {}, error: () => {} };

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
  logger: quiet,
});
const tickOptions = {
  budgetMs: num("BUDGET_MS", 2_500),
  leaseMs: num("LEASE_MS", 1_500),
  batch: num("BATCH", 20),
  concurrency: num("CONCURRENCY", 10),
  graceMs: 200,
};

let stopping = false;
process.on("message", (message) => {
  if (message === "stop") stopping = true;
});
process.on("disconnect", () => process.exit(0)); // the driver is gone
process.on("unhandledRejection", (error) => console.error("chaos-cluster-worker: unhandled rejection", error));

while (!stopping) {
  try {
    const report = await tq.tick(tickOptions);
    if (report.fetched === 0 && !report.more) await sleep(25);
  } catch (error) {
    if (env.CHAOS_VERBOSE)
      console.error(`chaos-cluster-worker ${process.pid}: tick failed: ${(error as Error).message}`);
    await sleep(50);
  }
}
ledger.close();
orderedLedger.close();
process.exit(0);
