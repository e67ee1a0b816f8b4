// npm run chaos:sentinel [-- --jobs 2000 --ordered-payloads 1000 --failovers-per-kind 3 --durability on|off|both --seed 1]
// The Sentinel failover phase (bench/chaos/sentinel-phase.ts), on its own;
// `npm run chaos` runs it too. Exits 1 when a must-be-0 row is not 0 with
// durability on (off, it shows what the option saves, and may lose jobs).
import { parseArgs } from "node:util";
import { renderTable } from "./chaos/checks.js";
import {
  runSentinelPhase,
  sentinelColumn,
  sentinelProblems,
  type SentinelOptions,
  type SentinelResult,
} from "./chaos/sentinel-phase.js";

export interface SentinelRun {
  jobs: number;
  orderedPayloads: number;
  failoversPerKind: number;
  durability: ("on" | "off")[];
  seed: number;
  quiet?: boolean;
}

/** Runs the phase once per durability setting; prints its table; true when the runs with durability on held. */
export async function sentinelChaosMain(run: SentinelRun): Promise<boolean> {
  const results: SentinelResult[] = [];
  for (const setting of run.durability) {
    const options: SentinelOptions = {
      jobs: run.jobs,
      orderedPayloads: run.orderedPayloads,
      ids: 50,
      keys: 8,
      tickLoops: 3,
      failoversPerKind: run.failoversPerKind,
      freezeMs: 3_500,
      durability: setting === "on",
      seed: run.seed,
      log: run.quiet ? undefined : (line) => process.stdout.write(`\r${line.padEnd(60)}`),
    };
    results.push(await runSentinelPhase(options));
  }
  const name = (r: SentinelResult) => `durability ${r.durability ? "on" : "off"}`;
  console.log(
    `\n\nSentinel failovers (a primary, a replica, a Sentinel; clients through ioredis' Sentinel support)\n${renderTable(results.map((r) => sentinelColumn(name(r), r)))}\n`,
  );
  for (const r of results) for (const problem of sentinelProblems(r)) console.log(`${name(r)}: ${problem}`);
  return results.every((r) => !r.durability || sentinelProblems(r).length === 0);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      jobs: { type: "string", default: "2000" },
      "ordered-payloads": { type: "string", default: "1000" },
      "failovers-per-kind": { type: "string", default: "3" },
      durability: { type: "string", default: "on" },
      seed: { type: "string", default: String(Date.now() % 1_000_000) },
      quiet: { type: "boolean", default: false },
    },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));
  const setting = values.durability!;
  if (!["on", "off", "both"].includes(setting)) throw new Error(`--durability must be on, off or both, got ${setting}`);
  const held = await sentinelChaosMain({
    jobs: Number(values.jobs),
    orderedPayloads: Number(values["ordered-payloads"]),
    failoversPerKind: Number(values["failovers-per-kind"]),
    durability: setting === "both" ? ["on", "off"] : [setting as "on" | "off"],
    seed: Number(values.seed),
    quiet: values.quiet,
  });
  process.exit(held ? 0 : 1);
}
