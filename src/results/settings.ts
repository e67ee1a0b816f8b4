// keepCompleted and maxResultBytes, checked once by createTickq.
import { TickqError } from "../errors.js";
import { numberOption } from "../options.js";
import type { KeepCompleted } from "./types.js";

export interface ResultSettings {
  /** Succeeded jobs kept as history; 0: none. */
  keepCount: number;
  keepAgeSec: number;
  /** Largest result kept, in bytes of its JSON; a larger one is kept as a note. */
  maxResultBytes: number;
}

/** Default: no history. Keeping costs every succeeded job a write and its bytes in Redis (docs/guides/results.md). */
export const DEFAULT_KEEP_COMPLETED = 0;
export const DEFAULT_KEEP_AGE_MS = 24 * 3600_000;
export const DEFAULT_MAX_RESULT_BYTES = 64 * 1024;
/** How long the outcome of an awaited job stays readable (`result:JID`), whatever keepCompleted says. */
export const AWAITED_RESULT_TTL_MS = 3600_000;

export function resultSettings(
  keep: KeepCompleted | 0 | undefined,
  maxResultBytes: number | undefined,
): ResultSettings {
  const max = numberOption(maxResultBytes, DEFAULT_MAX_RESULT_BYTES, "maxResultBytes", { min: 1, integer: true });
  const given = keep ?? DEFAULT_KEEP_COMPLETED;
  if (given === 0) return { keepCount: 0, keepAgeSec: DEFAULT_KEEP_AGE_MS / 1000, maxResultBytes: max };
  if (typeof given !== "object" || given === null) {
    throw new TickqError("BAD_OPTIONS", `keepCompleted must be 0 or { count, ageMs? }, got ${JSON.stringify(given)}`);
  }
  if (given.count === undefined) throw new TickqError("BAD_OPTIONS", "keepCompleted needs a count (0 keeps none)");
  const keepCount = numberOption(given.count, 0, "keepCompleted.count", { min: 0, integer: true });
  const ageMs = numberOption(given.ageMs, DEFAULT_KEEP_AGE_MS, "keepCompleted.ageMs", { min: 1_000 });
  // Past these, a bound keeps nothing back anyway; the cap keeps the numbers plain digits for the script.
  return { keepCount: Math.min(keepCount, 1e9), keepAgeSec: Math.min(ageMs / 1000, 1e10), maxResultBytes: max };
}
