// Notes on an outcome what the tick measured of the run, for the ack's
// metrics section: run time on the monotonic clock, wait from the job's
// `enqueued_at` (Redis time, set again when a retry or a scheduled job is
// queued) to its start on Redis' clock as the tick knows it.
import type { Outcome } from "../tick/passes/ack.js";
import type { JobPayload } from "../job/payload.js";
import { monotonicMs } from "../tick/clock.js";
import { jobTimeMs } from "../job/timestamp.js";

/**
 * Notes the run's measures on an outcome; `startedMono`: monotonicMs() when the handler started, and
 * `endedMono` when it threw (a failure's outcome takes a while to build: that is not its run time).
 */
export function runMeter(
  payload: JobPayload,
  startedMono: number,
  clockOffsetMs: number,
  outcome: Outcome,
  endedMono?: number,
): Outcome {
  // Put back without finishing: it runs again, and that run is the one counted.
  if (outcome.kind === "interrupted" || outcome.kind === "inDoubt" || outcome.kind === "unstarted") return outcome;
  // A job pushed without enqueued_at (by hand, by an old client) has no wait to count, nor one whose
  // enqueued_at is before 1970 (another client's nonsense): its wait, summed, passed what Redis adds.
  const enqueued = payload.enqueued_at;
  const waitMs =
    typeof enqueued === "number" && enqueued >= 0
      ? Math.max(0, startedMono + clockOffsetMs - jobTimeMs(enqueued))
      : undefined;
  const durationMs =
    outcome.kind === "succeeded" && outcome.durationMs !== undefined
      ? outcome.durationMs
      : (endedMono ?? monotonicMs()) - startedMono;
  outcome.ran = { name: payload.class, durationMs, waitMs };
  return outcome;
}
