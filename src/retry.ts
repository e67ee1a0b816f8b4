// What happens to a job whose handler threw (after Sidekiq's job_retry.rb):
//  1. the first failure sets failed_at and retry_count 0; later ones bump
//     retry_count and set retried_at;
//  2. while retry_count < the job's retry limit it goes to the retry set,
//     due after the backoff;
//  3. after that, or with `retry: false`, it goes to the dead set, kept whole
//     with its error, never discarded.
import type { JobDefinition, JobPayload } from "./types.js";

export type FailureOutcome = { kind: "retry"; payload: JobPayload; delaySec: number } | { kind: "dead"; payload: JobPayload };

/** Sidekiq's backoff: count**4 + 15 + rand(10 * (count + 1)) seconds. */
export function defaultBackoff(count: number): number {
  return count ** 4 + 15 + Math.floor(Math.random() * (10 * (count + 1)));
}

export function retryLimit(retry: unknown, maxRetries: number): number {
  if (retry === true) return maxRetries;
  if (typeof retry === "number" && Number.isFinite(retry)) return Math.max(0, Math.floor(retry));
  return 0;
}

export function onFailure(
  payload: JobPayload,
  error: unknown,
  nowSec: number,
  maxRetries: number,
  backoff: JobDefinition["backoff"],
): FailureOutcome {
  const previous = typeof payload.retry_count === "number" ? payload.retry_count : undefined;
  const count = previous === undefined ? 0 : previous + 1;
  const failed: JobPayload = {
    ...payload,
    error_message: error instanceof Error ? error.message : String(error),
    error_class: error instanceof Error ? error.name || error.constructor.name : typeof error,
    retry_count: count,
    ...(previous === undefined ? { failed_at: nowSec } : { retried_at: nowSec }),
  };
  if (count >= retryLimit(payload.retry, maxRetries)) return { kind: "dead", payload: failed };
  const delaySec = backoff ? backoff(count, error) : defaultBackoff(count);
  return { kind: "retry", payload: failed, delaySec: Number.isFinite(delaySec) && delaySec > 0 ? delaySec : 0 };
}
