// Notes on an outcome what the tick measured of the run, for the ack's
// metrics section: run time on the monotonic clock, wait from the job's
// `enqueued_at` (Redis time, set again when a retry or a scheduled job is
// queued) to its start on Redis' clock as the tick knows it.
import type { Outcome } from "../tick/passes/ack.js";
import type { JobPayload } from "../types.js";

export interface RunStart {
  /** monotonicMs() when the handler started. */
  startedMono: number;
  /** Redis time in ms when the handler started. */
  startedAtMs: number;
}

export function measured(outcome: Outcome, payload: JobPayload, start: RunStart, nowMono: number): Outcome {
  // Put back without finishing: it runs again, and that run is the one counted.
  if (outcome.kind === "interrupted" || outcome.kind === "inDoubt" || outcome.kind === "unstarted") return outcome;
  const durationMs =
    outcome.kind === "succeeded" && outcome.durationMs !== undefined ? outcome.durationMs : nowMono - start.startedMono;
  // A job pushed without enqueued_at (by hand, by an old client) has no wait to count.
  const waitMs =
    typeof payload.enqueued_at === "number" ? Math.max(0, start.startedAtMs - payload.enqueued_at * 1000) : undefined;
  outcome.ran = { name: payload.class, durationMs, waitMs };
  return outcome;
}
