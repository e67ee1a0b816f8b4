// The terms of results (tq.jobs.result, tq.enqueueAndWait, keepCompleted).
import type { EnqueueOptions } from "../job/enqueue-options.js";

/**
 * History of succeeded jobs: the newest `count`, none older than `ageMs`.
 * `0` (or `count: 0`) keeps none.
 */
export interface KeepCompleted {
  /** The newest this many succeeded jobs are kept; 0 keeps none. */
  count: number;
  /** Default 24 hours. */
  ageMs?: number;
}

/** A failed job's error, as it was recorded: its class (the error's name) and message. */
export interface JobError {
  /** The error's class (its `name`, such as "TypeError"). */
  class: string;
  /** The error's message. */
  message: string;
}

/** A job that succeeded, with its result (tq.jobs.result). */
export interface SucceededResult {
  /** It succeeded. */
  state: "succeeded";
  /** What the handler returned, read back from JSON; undefined when it returned nothing or the result was not kept. */
  value: unknown;
  /** Why the result was not kept (over maxResultBytes, or not JSON); the job still succeeded. */
  resultError?: string;
  /** When its ack was written (epoch ms, Redis' clock). */
  finishedAt: number;
  /** How long the handler ran, in ms. */
  durationMs: number;
}

/** A job that ended without succeeding (tq.jobs.result). */
export interface FailedResult {
  /** failed: out of retries with `dead: false` (discarded; known only for an awaited job); dead: in the dead set. */
  state: "failed" | "dead";
  /** The error its last run threw. */
  error: JobError;
}

/** A job cancelled by tq.jobs.cancel (tq.jobs.result). */
export interface CancelledResult {
  /** It was cancelled. */
  state: "cancelled";
  /** TickqCancelled, with where it was cancelled in the message. */
  error: JobError;
  /** When it was recorded cancelled (epoch ms, Redis' clock); 0 when unknown. */
  finishedAt: number;
}

/** A job that has not ended (tq.jobs.result). */
export interface PendingResult {
  /** Where it is now. */
  state: "queued" | "scheduled" | "retry" | "running";
  /** The last value it reported with ctx.progress (this run or an earlier one), if any. */
  progress?: unknown;
}

/** A job never started: its expiry passed while it waited (tq.jobs.result). */
export interface ExpiredResult {
  /** It expired. */
  state: "expired";
  /** When a fetch found it expired and recorded it (epoch ms, Redis' clock). */
  expiredAt: number;
  /** The expiry it was enqueued with (epoch ms, Redis' clock). */
  expiresAt: number;
}

/** No record of the job (tq.jobs.result). */
export interface UnknownResult {
  /** Never enqueued, deleted, or succeeded with no record kept (keepCompleted, the 1-hour record of an awaited job). */
  state: "unknown";
}

/** Where a job stands, and its result or error once it ended (tq.jobs.result). */
export type JobResult =
  | SucceededResult
  | FailedResult
  | ExpiredResult
  | CancelledResult
  | PendingResult
  | UnknownResult;

/** What a job's handler returns, awaited: the type enqueueAndWait answers (read back from JSON, so a Date arrives as its string). */
export type ResultOf<D> = D extends (...args: never[]) => infer R
  ? Awaited<R>
  : D extends {
        /** A job definition's handler. */
        perform: (...args: never[]) => infer R;
      }
    ? Awaited<R>
    : unknown;

export interface WaitOptions extends EnqueueOptions {
  /** How long to wait for the job to end; default 30,000 ms. Past it a WaitTimeoutError is thrown and the job goes on. */
  timeoutMs?: number;
}
