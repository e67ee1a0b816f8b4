// What a tick did, in a line for the recent ticks (the dashboard's Ticks
// page): finish carries it (lib/tick/record-recent.lua stamps it with Redis'
// time and keeps the last 100). Counts that are 0 are left out: a summary is
// a few dozen bytes, well under the 512 the list takes.
import type { TickReport } from "./tick-report.js";

const COUNTS = [
  "fetched",
  "succeeded",
  "failed",
  "retried",
  "dead",
  "discarded",
  "cancelled",
  "expired",
  "scheduled",
  "recurring",
  "resurrected",
  "requeued",
  "abandoned",
] as const;

/** The counts a recent tick shows, in this order. */
export type RecentCount = (typeof COUNTS)[number];
export const RECENT_COUNTS: readonly RecentCount[] = COUNTS;

/** The report as finish sends it: its id, how long it ran so far, its non-zero counts, whether it lost its lease or left work. */
export function recentSummary(report: TickReport, durationMs: number): string {
  const summary: Record<string, unknown> = { id: report.tickId, ms: Math.round(durationMs) };
  for (const name of COUNTS) if (report[name] > 0) summary[name] = report[name];
  if (report.leaseLost) summary.leaseLost = true;
  if (report.more) summary.more = true;
  return JSON.stringify(summary);
}
