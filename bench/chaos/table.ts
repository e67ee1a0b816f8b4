// The chaos table: one column per phase, one row per figure.
import type { FaultKind } from "./faults.js";
import { FAULT_KINDS } from "./faults.js";
import type { PhaseResult } from "./phase.js";

export function chaosTable(results: PhaseResult[]): string {
  const rows: [string, (r: PhaseResult) => string | number][] = [
    ["jobs", (r) => r.jobs],
    ["  plain / delayed / flaky / doomed", (r) => `${r.kinds.plain} / ${r.kinds.delayed} / ${r.kinds.flaky} / ${r.kinds.doomed}`],
    ["  flow: exclusive / limited / rated / once / coalesced", (r) => `${r.kinds.exclusive} / ${r.kinds.limited} / ${r.kinds.rated} / ${r.kinds.once} / ${r.kinds.coalesced}`],
    ...FAULT_KINDS.map((k): [string, (r: PhaseResult) => string | number] => [`faults: ${k}`, (r) => r.faults[k as FaultKind] ?? "—"]),
    ["faults: total", (r) => Object.values(r.faults).reduce((a, b) => a + (b ?? 0), 0)],
    ["enqueue chunks sent again", (r) => r.enqueueRetries],
    ["succeeded", (r) => r.succeeded],
    ["dead (expected: the doomed)", (r) => `${r.dead} (${r.deadExpected})`],
    ["lost (must be 0)", (r) => r.lost],
    ["stuck (must be 0)", (r) => r.stuck],
    ["overlapping runs of a flow key (must be 0)", (r) => r.overlaps],
    ["duplicates merged at enqueue", (r) => r.merged],
    ["  answered their own jid after a resend", (r) => r.ownAnswer],
    ["ran more than once (jobs)", (r) => r.ranTwice],
    ["  of them flow-controlled", (r) => r.ranTwiceFlow],
    ["  extra runs", (r) => r.extraRuns],
    ["processed: stats()", (r) => r.processed],
    ["processed: ledger (job, attempt) finished", (r) => r.ledgerFinished],
    ["processed: planned attempts", (r) => r.plannedProcessed],
    ["failed: stats() / ledger", (r) => `${r.failed} / ${r.ledgerFailed}`],
    ["worker crashes", (r) => r.workerCrashes],
    ["seconds", (r) => r.seconds],
    ["verdict", (r) => (r.problems.length ? "FAILED" : "ok")],
  ];
  const cells = rows.map(([label, get]) => [label, ...results.map((r) => String(get(r)))]);
  const header = ["", ...results.map((r) => r.adapter)];
  const widths = header.map((_, i) => Math.max(...[header, ...cells].map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...cells.map(line)].join("\n");
}
