// stats().workflows: lib/workflows/count-runs.lua's counts, per declared workflow.
import type { WorkflowStats, WorkflowStatus } from "./types.js";
import { nameRecord } from "../name-record.js";
import { terminalJson } from "../printable.js";

const ORDER: readonly WorkflowStatus[] = ["running", "sleeping", "waiting", "completed", "failed", "cancelled"];

export function workflowStatsFrom(counts: number[][], names: string[]): Record<string, WorkflowStats> {
  return nameRecord(
    names.map((name, k) => [name, Object.fromEntries(ORDER.map((s, i) => [s, counts[k]?.[i] ?? 0])) as WorkflowStats]),
  );
}

/** How recent a tick's note of a version it had no code for must be to be reported (a parked run is retried every minute). */
const UNRUNNABLE_FRESH_MS = 5 * 60_000;

/**
 * stats().warnings for runs parked because the ticks that claimed them lately lack their workflow or version
 * (lib/workflows/commit-runs.lua's `v` notes: "NAME@VERSION" → "<ms> <run id>").
 */
export function unrunnableWarnings(nowMs: number, notes: readonly { version: string; record: string }[]): string[] {
  const warnings: string[] = [];
  for (const { version: key, record } of notes) {
    const at = key.lastIndexOf("@");
    const match = /^(\d+) (.*)$/s.exec(record);
    if (at < 0 || !match || nowMs - Number(match[1]) >= UNRUNNABLE_FRESH_MS) continue;
    const name = JSON.stringify(key.slice(0, at));
    warnings.push(
      `runs of workflow ${name} version ${key.slice(at + 1)} (run ${terminalJson(match[2]!)}) are parked: a tick that claimed them lately declares no code for that version. Deploy code that declares it (as \`version\`, or under \`versions\`), or the runs wait.`,
    );
  }
  return warnings;
}
