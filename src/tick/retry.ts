// What happens to a job that failed (after Sidekiq's job_retry.rb):
//  1. the first failure sets failed_at and retry_count 0; later ones bump
//     retry_count and set retried_at. Any retry_count counts as a later one,
//     as Ruby's truthiness reads it: -1 too, which Sidekiq's API leaves when
//     it retries a job by hand (so a manual retry does not use up a retry);
//  2. `queue` becomes the job's `retry_queue`, if it names one, else the
//     queue it ran from: the retry runs there;
//  3. while retry_count < the job's retry limit it goes to the retry set,
//     due after the backoff;
//  4. after that, or with `retry: false`, it goes to the dead set, kept whole
//     with its error, never discarded — unless the job says `dead: false`,
//     Sidekiq's way of asking to be dropped once its retries run out.
// Failing cannot fail: whatever was thrown (a non-Error, an object whose
// getters or String() throw) is described defensively, a non-Error by its
// type and JSON, and a backoff that throws or returns nonsense falls back
// to Sidekiq's.
import { seconds, type JsonText } from "../job/json-splice.js";
import { isPrintableName } from "../names.js";
import { capMessage, describeError } from "../describe-error.js";
import type { JobPayload } from "../job/payload.js";
import { defaultBackoffMs, retryDelayMs, type Backoffs } from "./backoff.js";

export interface FailureFields {
  error_message: string;
  error_class: string;
  retry_count: number;
  queue: string;
  failed_at?: JsonText;
  retried_at?: JsonText;
}

export type FailureOutcome =
  | { kind: "retry"; fields: FailureFields; delaySec: number }
  | { kind: "dead"; fields: FailureFields }
  /** Out of retries with `dead: false`: dropped, as Sidekiq drops it. */
  | { kind: "discard"; fields: FailureFields };

export interface FailureContext {
  nowSec: number;
  maxRetries: number;
  backoff: Backoffs | undefined;
  /** The queue the job ran from. */
  queue: string;
}

/**
 * Sidekiq's backoff in seconds: count**4 + 15 + rand(10 * (count + 1)).
 * @deprecated Seconds: use `defaultBackoffMs` (milliseconds); removed in the next release.
 */
export function defaultBackoff(count: number): number {
  return defaultBackoffMs(count) / 1000;
}

/** Ruby's reading of `retry`: false or nil never, an integer that many times, anything else `maxRetries`. */
export function retryLimit(retry: unknown, maxRetries: number): number {
  if (retry === false || retry === null || retry === undefined) return 0;
  if (typeof retry === "number" && Number.isFinite(retry)) return Math.max(0, Math.floor(retry));
  return maxRetries;
}

/** The retry_count a job carries (any number: -1 too), or undefined when it never failed. */
export function previousRetryCount(payload: JobPayload): number | undefined {
  const count = payload.retry_count;
  return typeof count === "number" && Number.isFinite(count) ? Math.trunc(count) : undefined;
}

/** ctx.attempt: 1 on the first run, retry_count + 2 after failures, never below 2 for a job that failed before. */
export function attemptOf(payload: JobPayload): number {
  const previous = previousRetryCount(payload);
  return previous === undefined ? 1 : Math.max(2, previous + 2);
}

export { capMessage, describeError };

export function onFailure(payload: JobPayload, error: unknown, context: FailureContext): FailureOutcome {
  const previous = previousRetryCount(payload);
  const count = previous === undefined ? 0 : previous + 1;
  const { errorClass, message } = describeError(error);
  const retryQueue = payload.retry_queue;
  const fields: FailureFields = {
    error_message: message,
    error_class: errorClass,
    retry_count: count,
    queue: typeof retryQueue === "string" && isPrintableName(retryQueue) ? retryQueue : context.queue,
    ...(previous === undefined ? { failed_at: seconds(context.nowSec) } : { retried_at: seconds(context.nowSec) }),
  };
  if (count < retryLimit(payload.retry, context.maxRetries)) {
    return { kind: "retry", fields, delaySec: retryDelayMs(context.backoff, count, error) / 1000 };
  }
  return payload.dead === false ? { kind: "discard", fields } : { kind: "dead", fields };
}
