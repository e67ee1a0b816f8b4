// stats().workflows: lib/workflows/count-runs.lua's counts, per declared workflow.
import type { WorkflowStats, WorkflowStatus } from "./types.js";
import { nameRecord } from "../name-record.js";

const ORDER: readonly WorkflowStatus[] = ["running", "sleeping", "waiting", "completed", "failed", "cancelled"];

export function workflowStatsFrom(counts: number[][], names: string[]): Record<string, WorkflowStats> {
  return nameRecord(
    names.map((name, k) => [name, Object.fromEntries(ORDER.map((s, i) => [s, counts[k]?.[i] ?? 0])) as WorkflowStats]),
  );
}
