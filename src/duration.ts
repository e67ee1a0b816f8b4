// Durations of sleeps and timeouts: ms, or "500ms" / "30s" / "15m" / "12h" / "3d"; and the
// due times of step.sleepUntil.
import { TickqError } from "./errors.js";

/** A duration: ms, or a number with a unit ("500ms", "30s", "15m", "12h", "3d"). */
export type Duration = number | `${number}${"ms" | "s" | "m" | "h" | "d"}`;

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The duration in whole ms; a negative, non-finite or unreadable one is a BAD_ARGS TickqError naming `what`. */
export function durationMs(duration: Duration, what: string): number {
  let ms: number | undefined;
  if (typeof duration === "number") ms = duration;
  else if (typeof duration === "string") {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(duration.trim());
    if (m) ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  }
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) {
    throw new TickqError(
      "BAD_ARGS",
      `${what}: a duration is ms or a number with ms, s, m, h or d ("30s", "3d"), got ${JSON.stringify(duration)}`,
    );
  }
  return Math.round(ms);
}

// A date, or a date and time with its offset: a time without one would mean the host's zone.
const ISO = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/**
 * Epoch ms of a Date, an epoch-ms number or an ISO 8601 string (a date, or a date and time with
 * `Z` or an offset); anything else is a BAD_ARGS TickqError naming `what`.
 */
export function dueTimeMs(when: Date | number | string, what: string): number {
  let ms: number | undefined;
  if (when instanceof Date) ms = when.getTime();
  else if (typeof when === "number") ms = when;
  else if (typeof when === "string" && ISO.test(when.trim())) ms = Date.parse(when.trim());
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) {
    throw new TickqError(
      "BAD_ARGS",
      `${what}: a due time is a Date, epoch ms or an ISO 8601 string with its offset ("2026-12-01T09:00:00Z"), got ${JSON.stringify(when instanceof Date ? "Invalid Date" : when)}`,
    );
  }
  return Math.round(ms);
}
