// Daily history: processed and failed per day, from the counters the ack
// pass keeps per UTC day (Sidekiq's own `stat:processed:YYYY-MM-DD` keys,
// kept five years), so Sidekiq's Web and tickq read the same figures.
import { TickqError } from "../errors.js";
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";

/** One UTC day of `tq.stats.history()`. */
export interface DayStats {
  /** The UTC day, YYYY-MM-DD. */
  date: string;
  /** Jobs that ran that day, succeeded or failed. */
  processed: number;
  /** Handler failures that day. */
  failed: number;
}

/** Days one call may read: the counters live five years. Also bounds one MGET. */
export const MAX_HISTORY_DAYS = 1_825;

/** The last `days` days, oldest first, today (by Redis' clock) last. */
export async function readHistory(runtime: Runtime, days = 30): Promise<DayStats[]> {
  if (!Number.isInteger(days) || days < 1 || days > MAX_HISTORY_DAYS) {
    throw new TickqError(
      "BAD_ARGS",
      `history: days must be an integer from 1 to ${MAX_HISTORY_DAYS}, got ${String(days)}`,
    );
  }
  const reply = await runCall(runtime, protocol.history, { processed: `${runtime.prefix}stat:processed` }, { days });
  return reply.map((d) => ({ date: d.day, processed: d.processed, failed: d.failed }));
}
