// npm run chaos [-- --jobs 10000 --workers 3 --adapter both --faults-per-kind 50 --seconds 90 --seed 1 --skip-extra-phases
//                  --cluster-faults 2 --partitions 1 --phases workflows,cancel]
// The fault suite. A private Redis (own port and folder, AOF fsynced on
// every write) is faulted while tick workers (child processes) run jobs on
// it through proxies, and a ledger on a Redis that is never faulted records
// every job start and finish. Faults, at random: CLIENT KILL, CLIENT PAUSE,
// Redis SIGKILL + restart from its AOF, worker SIGKILL, a reply dropped after
// Redis ran the command (TCP; ioredis resends) and, over HTTP, a response
// dropped after the REST server ran it (@upstash/redis retries). One phase
// per adapter. A share of the jobs is flow-controlled (while-executing,
// until-executed, coalesce, a concurrency limit, a rate limit: see
// bench/chaos/jobs.ts). Then the phases registered in bench/chaos/phases.ts.
// Prints a table whose rows are the judge's checks (bench/chaos/verify.ts,
// bench/chaos/checks.ts) and exits 1 if any phase broke one (--phases NAME,…
// runs only those registered phases, without the plain one): a lost or stuck
// job, two runs of a flow key beyond its limit at once, a count that differs
// from the ledger or from the planned attempts, a fault kind injected fewer
// times than asked. test/integration/tick/chaos-short-run.test.ts runs the same judge.
// Then the ordered phases (bench/chaos-ordered.ts; --ordered-payloads 0 skips
// them): exits 1 on a lost payload, an overlap or a fence that did not grow.
// Then the Sentinel failover phase over ioredis with durability on
// (bench/chaos-sentinel.ts; --sentinel-failovers 0 skips it), and the Redis
// Cluster phase over ioredis' Cluster client with durability on
// (bench/chaos-cluster.ts; --cluster-faults 0 skips it, --partitions N
// puts tickq's keys in N partitions instead of one hash tag).
import { parseArgs } from "node:util";
import { orderedChaosMain } from "./chaos-ordered.js";
import { clusterChaosMain } from "./chaos-cluster.js";
import { sentinelChaosMain } from "./chaos-sentinel.js";
import { findRedis } from "../src/platforms/node/find-redis.js";
import type { AdapterName } from "./chaos/connect.js";
import { renderTable, type Column } from "./chaos/checks.js";
import { runPhase } from "./chaos/phase.js";
import { EXTRA_PHASES, type PhaseContext } from "./chaos/phases.js";
import { startPrivateRedis } from "./chaos/private-redis.js";
import { seededRng } from "./chaos/rng.js";
import { phaseColumn } from "./chaos/verify.js";

export interface ChaosOptions {
  jobs: number;
  workers: number;
  adapters: AdapterName[];
  perKind: number;
  /** Fault window of each phase; default: ~0.3 s a fault. */
  seconds?: number;
  seed: number;
  ledgerUrl?: string;
  settleSeconds?: number;
  leaseMs?: number;
  budgetMs?: number;
  /** Run the registered phases too (bench/chaos/phases.ts); default true. */
  extraPhases?: boolean;
  /** Only these registered phases (their names), and not the plain one; default: the plain one and every registered one. */
  only?: string[];
  log?: (line: string) => void;
}

/** Runs the plain phase over each adapter, then each registered phase over each adapter: one judged column each. */
export async function runChaos(o: ChaosOptions): Promise<Column[]> {
  const redis = await startPrivateRedis();
  const runId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const columns: Column[] = [];
  const context = (adapter: AdapterName, seed: number): PhaseContext => ({
    adapter,
    redis,
    ledgerUrl: o.ledgerUrl ?? "redis://127.0.0.1:6379",
    runId,
    workers: o.workers,
    perKind: o.perKind,
    seconds: o.seconds ?? Math.max(10, Math.ceil((adapter === "upstash" ? 6 : 5) * o.perKind * 0.3)),
    settleSeconds: o.settleSeconds ?? 60,
    leaseMs: o.leaseMs ?? 1_500,
    budgetMs: o.budgetMs ?? 2_500,
    rng: seededRng(seed),
    log: o.log ?? (() => {}),
  });
  try {
    for (const [i, adapter] of (o.only ? [] : o.adapters).entries())
      columns.push(phaseColumn(await runPhase({ ...context(adapter, o.seed + i), jobs: o.jobs })));
    for (const [p, phase] of (o.extraPhases === false ? [] : EXTRA_PHASES).entries()) {
      if (o.only && !o.only.includes(phase.name)) continue;
      for (const [i, adapter] of o.adapters.entries())
        columns.push(await phase.run(context(adapter, o.seed + 1_000 * (p + 1) + i)));
    }
  } finally {
    await redis.stop();
  }
  return columns;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      jobs: { type: "string", default: "10000" },
      workers: { type: "string", default: "3" },
      seconds: { type: "string" },
      adapter: { type: "string", default: "both" },
      "faults-per-kind": { type: "string", default: "50" },
      seed: { type: "string", default: String(Date.now() % 1_000_000) },
      quiet: { type: "boolean", default: false },
      "ordered-payloads": { type: "string", default: "3000" },
      "ordered-ids": { type: "string", default: "100" },
      "sentinel-failovers": { type: "string", default: "3" },
      "cluster-faults": { type: "string", default: "2" },
      partitions: { type: "string", default: "1" },
      "skip-extra-phases": { type: "boolean", default: false },
      phases: { type: "string" },
    },
  });
  const only = values.phases?.split(",").map((name) => name.trim());
  const unknown = (only ?? []).filter((name) => !EXTRA_PHASES.some((p) => p.name === name));
  if (unknown.length > 0)
    throw new Error(
      `--phases must name registered phases (${EXTRA_PHASES.map((p) => p.name).join(", ")}), got ${unknown.join(", ")}`,
    );
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130)); // runs the cleanup at exit
  const adapter = values.adapter!;
  if (!["ioredis", "upstash", "both"].includes(adapter))
    throw new Error(`--adapter must be ioredis, upstash or both, got ${adapter}`);
  const options: ChaosOptions = {
    jobs: Number(values.jobs),
    workers: Number(values.workers),
    adapters: adapter === "both" ? ["ioredis", "upstash"] : [adapter as AdapterName],
    perKind: Number(values["faults-per-kind"]),
    seconds: values.seconds ? Number(values.seconds) : undefined,
    seed: Number(values.seed),
    extraPhases: !values["skip-extra-phases"],
    only,
    log: values.quiet ? undefined : (line) => process.stdout.write(`\r${line.padEnd(60)}`),
  };
  console.log(
    `chaos: ${options.jobs} jobs a phase, ${options.workers} workers, ${options.adapters.join(" then ")}, ≥${options.perKind} faults of each kind, seed ${options.seed}`,
  );
  const ledger = await findRedis(); // REDIS_URL, else 127.0.0.1:6379, else a private one: never the faulted Redis
  const columns = await runChaos({ ...options, ledgerUrl: ledger.url }).finally(() => ledger.stop());
  console.log(`\n\n${renderTable(columns)}\n`);
  for (const c of columns) {
    for (const problem of c.problems) console.log(`${c.name}: ${problem}`);
    if (c.problems.length && c.workerStderr?.length)
      console.log(`${c.name}: workers' last stderr lines:\n  ${c.workerStderr.join("\n  ")}`);
  }
  const failed = columns.some((c) => c.problems.length > 0);
  console.log(
    failed
      ? "FAILED: a check of the table did not hold (the lines above say which)"
      : "every check held: no job lost, none stuck, no flow key overlapped, every count matches the plan and the ledger, every fault injected as asked",
  );
  // A phase run alone is all of the run.
  if (only !== undefined) process.exit(failed ? 1 : 0);
  const orderedPayloads = Number(values["ordered-payloads"]);
  const orderedHeld =
    orderedPayloads === 0 ||
    (await orderedChaosMain({ ...options, payloads: orderedPayloads, ids: Number(values["ordered-ids"]) }));
  const failovers = Number(values["sentinel-failovers"]);
  const sentinelHeld =
    failovers === 0 ||
    (await sentinelChaosMain({
      jobs: 3_000,
      orderedPayloads: 1_000,
      failoversPerKind: failovers,
      durability: ["on"],
      seed: options.seed,
      quiet: values.quiet,
    }));
  const clusterFaults = Number(values["cluster-faults"]);
  const clusterLedger = clusterFaults === 0 ? undefined : await findRedis();
  const clusterHeld =
    clusterLedger === undefined ||
    (await clusterChaosMain({
      jobs: 1_500,
      orderedPayloads: 300,
      faultsPerKind: clusterFaults,
      clients: ["ioredis"],
      partitions: Number(values.partitions),
      durability: true,
      workers: options.workers,
      seed: options.seed,
      ledgerUrl: clusterLedger.url,
      quiet: values.quiet,
    }).finally(() => clusterLedger.stop()));
  process.exit(failed || !orderedHeld || !sentinelHeld || !clusterHeld ? 1 : 0);
}
