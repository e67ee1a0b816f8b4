// npm run chaos [-- --jobs 10000 --workers 3 --adapter both --faults-per-kind 50 --seconds 90 --seed 1]
// The fault suite. A private Redis (own port and folder, AOF fsynced on
// every write) is faulted while tick workers (child processes) run jobs on
// it through proxies, and a ledger on a Redis that is never faulted records
// every job start and finish. Faults, at random: CLIENT KILL, CLIENT PAUSE,
// Redis SIGKILL + restart from its AOF, worker SIGKILL, a reply dropped after
// Redis ran the command (TCP; ioredis resends) and, over HTTP, a response
// dropped after the REST server ran it (@upstash/redis retries). One phase
// per adapter. A share of the jobs is flow-controlled (while-executing,
// until-executed, coalesce, a concurrency limit, a rate limit: see
// bench/chaos/jobs.ts). Prints a table; exits 1 on a lost or stuck job, two
// runs of a flow key beyond its limit at once, or a miscount.
// Then the ordered phases (bench/chaos-ordered.ts; --ordered-payloads 0 skips
// them): exits 1 on a lost payload, an overlap or a fence that did not grow.
import { parseArgs } from "node:util";
import { orderedChaosMain } from "./chaos-ordered.js";
import { findRedis } from "../functions/node/find-redis.js";
import type { AdapterName } from "./chaos/connect.js";
import { runPhase, type PhaseResult } from "./chaos/phase.js";
import { startPrivateRedis } from "./chaos/private-redis.js";
import { seededRng } from "./chaos/rng.js";
import { chaosTable } from "./chaos/table.js";

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
  log?: (line: string) => void;
}

export async function runChaos(o: ChaosOptions): Promise<PhaseResult[]> {
  const redis = await startPrivateRedis();
  const runId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const results: PhaseResult[] = [];
  try {
    for (const [i, adapter] of o.adapters.entries()) {
      const kinds = adapter === "upstash" ? 6 : 5;
      results.push(
        await runPhase({
          adapter,
          redis,
          ledgerUrl: o.ledgerUrl ?? "redis://127.0.0.1:6379",
          runId,
          jobs: o.jobs,
          workers: o.workers,
          perKind: o.perKind,
          seconds: o.seconds ?? Math.max(10, Math.ceil(kinds * o.perKind * 0.3)),
          settleSeconds: o.settleSeconds ?? 60,
          leaseMs: o.leaseMs ?? 1_500,
          budgetMs: o.budgetMs ?? 2_500,
          rng: seededRng(o.seed + i),
          log: o.log ?? (() => {}),
        }),
      );
    }
  } finally {
    await redis.stop();
  }
  return results;
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
    },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130)); // runs the cleanup at exit
  const adapter = values.adapter!;
  if (!["ioredis", "upstash", "both"].includes(adapter)) throw new Error(`--adapter must be ioredis, upstash or both, got ${adapter}`);
  const options: ChaosOptions = {
    jobs: Number(values.jobs),
    workers: Number(values.workers),
    adapters: adapter === "both" ? ["ioredis", "upstash"] : [adapter as AdapterName],
    perKind: Number(values["faults-per-kind"]),
    seconds: values.seconds ? Number(values.seconds) : undefined,
    seed: Number(values.seed),
    log: values.quiet ? undefined : (line) => process.stdout.write(`\r${line.padEnd(60)}`),
  };
  console.log(`chaos: ${options.jobs} jobs a phase, ${options.workers} workers, ${options.adapters.join(" then ")}, ≥${options.perKind} faults of each kind, seed ${options.seed}`);
  const ledger = await findRedis(); // REDIS_URL, else 127.0.0.1:6379, else a private one: never the faulted Redis
  const results = await runChaos({ ...options, ledgerUrl: ledger.url }).finally(() => ledger.stop());
  console.log(`\n\n${chaosTable(results)}\n`);
  for (const r of results) {
    for (const problem of r.problems) console.log(`${r.adapter}: ${problem}`);
    if (r.problems.length && r.workerStderr.length) console.log(`${r.adapter}: workers' last stderr lines:\n  ${r.workerStderr.join("\n  ")}`);
  }
  const failed = results.some((r) => r.problems.length > 0);
  console.log(failed ? "FAILED: jobs lost, stuck, overlapping or miscounted" : "no job lost, none stuck, no flow key overlapped, every count matches");
  const orderedPayloads = Number(values["ordered-payloads"]);
  const orderedHeld = orderedPayloads === 0 || (await orderedChaosMain({ ...options, payloads: orderedPayloads, ids: Number(values["ordered-ids"]) }));
  process.exit(failed || !orderedHeld ? 1 : 0);
}
