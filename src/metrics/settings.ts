// The `metrics` option of createTickq, checked once.
import { TickqError } from "../errors.js";
import { numberOption } from "../options.js";

/** `metrics` option: how long per-minute metrics stay in Redis; `false` keeps none and sends nothing. */
export interface MetricsOptions {
  /** How long a minute's counts stay in Redis (default 72 hours, as Sidekiq 8 keeps). */
  retentionMs?: number;
}

/** Checked metrics settings; undefined when metrics are off. */
export interface MetricsSettings {
  retentionSec: number;
}

/** Default retention: 72 hours. */
export const DEFAULT_METRICS_RETENTION_MS = 72 * 3600_000;

export function metricsSettings(given: MetricsOptions | false | undefined): MetricsSettings | undefined {
  if (given === false) return undefined;
  if (given !== undefined && (typeof given !== "object" || given === null)) {
    throw new TickqError("BAD_OPTIONS", `metrics must be false or { retentionMs? }, got ${JSON.stringify(given)}`);
  }
  const retentionMs = numberOption(given?.retentionMs, DEFAULT_METRICS_RETENTION_MS, "metrics.retentionMs", {
    min: 60_000,
    integer: true,
  });
  return { retentionSec: Math.ceil(retentionMs / 1000) };
}
