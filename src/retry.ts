// What happens to a job that failed (after Sidekiq's job_retry.rb):
//  1. the first failure sets failed_at and retry_count 0; later ones bump
//     retry_count and set retried_at;
//  2. while retry_count < the job's retry limit it goes to the retry set,
//     due after the backoff;
//  3. after that, or with `retry: false`, it goes to the dead set, kept whole
//     with its error, never discarded.
// Failing cannot fail: whatever was thrown (a non-Error, an object whose
// getters or String() throw) is described defensively, and a backoff that
// throws or returns nonsense falls back to Sidekiq's.
import type { JobDefinition, JobPayload } from "./types.js";

export interface FailureFields {
  error_message: string;
  error_class: string;
  retry_count: number;
  failed_at?: number;
  retried_at?: number;
}

export type FailureOutcome = { kind: "retry"; fields: FailureFields; delaySec: number } | { kind: "dead"; fields: FailureFields };

/** Longest error_message kept, as Sidekiq caps it. */
const MAX_MESSAGE = 10_000;

/** Sidekiq's backoff: count**4 + 15 + rand(10 * (count + 1)) seconds. */
export function defaultBackoff(count: number): number {
  return count ** 4 + 15 + Math.floor(Math.random() * (10 * (count + 1)));
}

export function retryLimit(retry: unknown, maxRetries: number): number {
  if (retry === true) return maxRetries;
  if (typeof retry === "number" && Number.isFinite(retry)) return Math.max(0, Math.floor(retry));
  return 0;
}

function attempt<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/** Class and message of anything thrown; never throws itself. */
export function describeError(error: unknown): { errorClass: string; message: string } {
  const isError = attempt(() => error instanceof Error, false);
  const errorClass = isError
    ? attempt(() => String((error as Error).name || (error as Error).constructor.name), "Error")
    : attempt(() => (error === null ? "null" : typeof error), "unknown");
  const message = isError
    ? attempt(() => String((error as Error).message), "(unreadable message)")
    : attempt(() => String(error), "(a thrown value that cannot be printed)");
  return { errorClass: errorClass || "Error", message: message.slice(0, MAX_MESSAGE) };
}

function safeDelay(backoff: JobDefinition["backoff"], count: number, error: unknown): number {
  const delay = backoff ? attempt(() => backoff(count, error), Number.NaN) : Number.NaN;
  if (typeof delay === "number" && Number.isFinite(delay) && delay >= 0) return delay;
  return defaultBackoff(count);
}

export function onFailure(
  payload: JobPayload,
  error: unknown,
  nowSec: number,
  maxRetries: number,
  backoff: JobDefinition["backoff"],
): FailureOutcome {
  const previous = typeof payload.retry_count === "number" && payload.retry_count >= 0 ? payload.retry_count : undefined;
  const count = previous === undefined ? 0 : previous + 1;
  const { errorClass, message } = describeError(error);
  const fields: FailureFields = {
    error_message: message,
    error_class: errorClass,
    retry_count: count,
    ...(previous === undefined ? { failed_at: nowSec } : { retried_at: nowSec }),
  };
  if (count >= retryLimit(payload.retry, maxRetries)) return { kind: "dead", fields };
  return { kind: "retry", fields, delaySec: safeDelay(backoff, count, error) };
}
