// npm run chaos:cluster [-- --jobs 2000 --ordered-payloads 500 --faults-per-kind 3 --client ioredis|node-redis|both
//                          --partitions 1 --durability on|off --workers 3 --seed 1]
// The cluster phase (bench/chaos/cluster-phase.ts) on its own: a private
// cluster of 3 masters with a replica each, masters SIGKILLed and failed over
// by the cluster, CLIENT KILL, tick processes SIGKILLed. `npm run chaos` runs
// it too (ioredis, small). Exits 1 when a job or a payload is lost, a key or
// an id overlaps, or a fault was injected fewer times than asked.
import { parseArgs } from "node:util";
import { findRedis } from "../src/platforms/node/find-redis.js";
import { renderTable } from "./chaos/checks.js";
import { clusterColumn, runClusterPhase } from "./chaos/cluster-phase.js";
import type { ClusterClientName } from "./chaos/cluster-connect.js";

export interface ClusterRun {
  jobs: number;
  orderedPayloads: number;
  faultsPerKind: number;
  clients: ClusterClientName[];
  partitions: number;
  durability: boolean;
  workers: number;
  seed: number;
  /** A Redis that is never faulted, for the ledgers. */
  ledgerUrl: string;
  quiet?: boolean;
}

/** Runs the phase once per client; prints its table; true when every check held. */
export async function clusterChaosMain(run: ClusterRun): Promise<boolean> {
  const runId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const columns = [];
  for (const [i, client] of run.clients.entries()) {
    const result = await runClusterPhase({
      client,
      partitions: run.partitions,
      jobs: run.jobs,
      orderedPayloads: run.orderedPayloads,
      ids: 20,
      workers: run.workers,
      faultsPerKind: run.faultsPerKind,
      // node-redis' cluster client offers no WAIT: createTickq refuses durability on it (src/redis/node-redis.ts).
      durability: run.durability && client === "ioredis",
      ledgerUrl: run.ledgerUrl,
      runId,
      settleSeconds: 90,
      seed: run.seed + i,
      log: run.quiet ? undefined : (line) => process.stdout.write(`\r${line.padEnd(70)}`),
    });
    columns.push(clusterColumn(result));
  }
  console.log(
    `\n\nRedis Cluster (3 masters, a replica each; masters SIGKILLed and failed over, CLIENT KILL, tick kills)\n${renderTable(columns)}\n`,
  );
  for (const c of columns) {
    for (const problem of c.problems) console.log(`${c.name}: ${problem}`);
    if (c.problems.length && c.workerStderr?.length)
      console.log(`${c.name}: workers' last stderr lines:\n  ${c.workerStderr.join("\n  ")}`);
  }
  return columns.every((c) => c.problems.length === 0);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      jobs: { type: "string", default: "2000" },
      "ordered-payloads": { type: "string", default: "500" },
      "faults-per-kind": { type: "string", default: "3" },
      client: { type: "string", default: "both" },
      partitions: { type: "string", default: "1" },
      durability: { type: "string", default: "on" },
      workers: { type: "string", default: "3" },
      seed: { type: "string", default: String(Date.now() % 1_000_000) },
      quiet: { type: "boolean", default: false },
    },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));
  const client = values.client!;
  if (!["ioredis", "node-redis", "both"].includes(client))
    throw new Error(`--client must be ioredis, node-redis or both, got ${client}`);
  if (!["on", "off"].includes(values.durability!))
    throw new Error(`--durability must be on or off, got ${values.durability}`);
  const ledger = await findRedis(); // REDIS_URL, else 127.0.0.1:6379, else a private one: never the faulted cluster
  const held = await clusterChaosMain({
    jobs: Number(values.jobs),
    orderedPayloads: Number(values["ordered-payloads"]),
    faultsPerKind: Number(values["faults-per-kind"]),
    clients: client === "both" ? ["ioredis", "node-redis"] : [client as ClusterClientName],
    partitions: Number(values.partitions),
    durability: values.durability === "on",
    workers: Number(values.workers),
    seed: Number(values.seed),
    ledgerUrl: ledger.url,
    quiet: values.quiet,
  }).finally(() => ledger.stop());
  console.log(held ? "every check held: nothing lost, no overlap, every fault injected as asked" : "FAILED");
  process.exit(held ? 0 : 1);
}
