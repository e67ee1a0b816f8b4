// Ordered jobs under the fault suite: `npm run chaos` runs these phases after
// the plain ones, or alone: npx tsx bench/chaos-ordered.ts [-- --payloads 3000
// --ids 100 --workers 3 --adapter both --faults-per-kind 20 --seed 1]; with CHAOS_MAX_PAYLOADS=N in
// the environment the workers' ordered job takes at most N payloads an execution (maxPayloads). Each
// phase faults its own private Redis (as bench/chaos.ts does) while ordered
// workers run; it fails on a lost payload, an overlap, a fence that did not
// grow, a run whose payloads came out of enqueue order, work left behind, or a fault kind injected fewer times than asked
// (the rows of ORDERED_CHECKS, bench/chaos/ordered-phase.ts).
import { parseArgs } from "node:util";
import { findRedis } from "../src/platforms/node/find-redis.js";
import type { AdapterName } from "./chaos/connect.js";
import { columnOf, renderTable } from "./chaos/checks.js";
import { ORDERED_CHECKS, runOrderedPhase, type OrderedPhaseResult } from "./chaos/ordered-phase.js";
import { startPrivateRedis } from "./chaos/private-redis.js";
import { seededRng } from "./chaos/rng.js";

export interface OrderedChaosOptions {
  payloads: number;
  ids: number;
  workers: number;
  adapters: AdapterName[];
  perKind: number;
  seconds?: number;
  seed: number;
  ledgerUrl?: string;
  settleSeconds?: number;
  leaseMs?: number;
  budgetMs?: number;
  log?: (line: string) => void;
}

export async function runOrderedChaos(o: OrderedChaosOptions): Promise<OrderedPhaseResult[]> {
  const redis = await startPrivateRedis();
  const runId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const results: OrderedPhaseResult[] = [];
  try {
    for (const [i, adapter] of o.adapters.entries()) {
      const kinds = adapter === "upstash" ? 6 : 5;
      results.push(
        await runOrderedPhase({
          adapter,
          redis,
          runId,
          ledgerUrl: o.ledgerUrl ?? "redis://127.0.0.1:6379",
          payloads: o.payloads,
          ids: o.ids,
          workers: o.workers,
          perKind: o.perKind,
          seconds: o.seconds ?? Math.max(10, Math.ceil(kinds * o.perKind * 0.3)),
          settleSeconds: o.settleSeconds ?? 60,
          leaseMs: o.leaseMs ?? 1_500,
          budgetMs: o.budgetMs ?? 2_500,
          rng: seededRng(o.seed + 100 + i),
          log: o.log ?? (() => {}),
        }),
      );
    }
  } finally {
    await redis.stop();
  }
  return results;
}

export function orderedChaosTable(results: OrderedPhaseResult[]): string {
  return renderTable(results.map((r) => columnOf(r.adapter, ORDERED_CHECKS, r)));
}

/** Runs the ordered phases from the command line (own, or after bench/chaos.ts's); prints the table; true if they held. */
export async function orderedChaosMain(o: Omit<OrderedChaosOptions, "ledgerUrl">): Promise<boolean> {
  const ledger = await findRedis(); // never the faulted Redis
  const results = await runOrderedChaos({ ...o, ledgerUrl: ledger.url }).finally(() => ledger.stop());
  console.log(`\n\n${orderedChaosTable(results)}\n`);
  for (const r of results) {
    for (const problem of r.problems) console.log(`ordered ${r.adapter}: ${problem}`);
    if (r.problems.length && r.workerStderr.length)
      console.log(`ordered ${r.adapter}: workers' last stderr lines:\n  ${r.workerStderr.join("\n  ")}`);
  }
  const held = results.every((r) => r.problems.length === 0);
  console.log(
    held
      ? "ordered: no payload lost, no overlap, every fence grew, every run in enqueue order"
      : "FAILED: ordered payloads lost, runs overlapped or out of order, or work left",
  );
  return held;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      payloads: { type: "string", default: "3000" },
      ids: { type: "string", default: "100" },
      workers: { type: "string", default: "3" },
      seconds: { type: "string" },
      adapter: { type: "string", default: "both" },
      "faults-per-kind": { type: "string", default: "20" },
      seed: { type: "string", default: String(Date.now() % 1_000_000) },
    },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));
  const adapter = values.adapter!;
  if (!["ioredis", "upstash", "both"].includes(adapter))
    throw new Error(`--adapter must be ioredis, upstash or both, got ${adapter}`);
  console.log(`chaos (ordered): ${values.payloads} payloads over ${values.ids} ids a phase, seed ${values.seed}`);
  const held = await orderedChaosMain({
    payloads: Number(values.payloads),
    ids: Number(values.ids),
    workers: Number(values.workers),
    adapters: adapter === "both" ? ["ioredis", "upstash"] : [adapter as AdapterName],
    perKind: Number(values["faults-per-kind"]),
    seconds: values.seconds ? Number(values.seconds) : undefined,
    seed: Number(values.seed),
    log: (line) => process.stdout.write(`\r${line.padEnd(60)}`),
  });
  process.exit(held ? 0 : 1);
}
