// The metrics section of an ack (lib/metrics/record-runs.lua): per ack entry
// the job name, its run time and its wait, announced as " mN RETENTION" after
// the others count. Jobs that did not run send an empty name.
import type { Outcome } from "../tick/passes/ack.js";
import type { MetricsSettings } from "./settings.js";

/** What the tick measured of one run: its job name, its run time (monotonic clock) and its wait from enqueue to start. */
export interface RunMeasure {
  name: string;
  durationMs: number;
  /** Undefined for a job with no `enqueued_at`. */
  waitMs: number | undefined;
}

const msText = (ms: number) => Math.max(0, Math.round(ms));

export function metricsSection(
  inAckOrder: readonly Outcome[],
  settings: MetricsSettings | undefined,
): { header: string; args: (string | number)[] } | undefined {
  if (!settings || inAckOrder.length === 0) return undefined;
  const args: (string | number)[] = [];
  let measured = false;
  for (const o of inAckOrder) {
    const ran = o.ran;
    if (!ran) {
      args.push("", 0, 0);
      continue;
    }
    measured = true;
    args.push(ran.name, msText(ran.durationMs), ran.waitMs === undefined ? "" : msText(ran.waitMs));
  }
  if (!measured) return undefined;
  return { header: `m${inAckOrder.length} ${settings.retentionSec}`, args };
}
