// The terms of results (tq.jobs.result, tq.enqueueAndWait, keepCompleted).
import type { EnqueueOptions } from "../types.js";

/**
 * History of succeeded jobs: the newest `count`, none older than `ageMs`.
 * `0` (or `count: 0`) keeps none.
 */
export interface KeepCompleted {
  count: number;
  /** Default 24 hours. */
  ageMs?: number;
}

/** A failed job's error, as it was recorded: its class (the error's name) and message. */
export interface JobError {
  class: string;
  message: string;
}

/** Where a job stands, and its result or error once it ended (tq.jobs.result). */
export type JobResult =
  | {
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
  /** failed: out of retries with `dead: false` (discarded); dead: in the dead set. */
  | { state: "failed" | "dead"; error: JobError }
  /** `progress`: the last value the job reported with ctx.progress (this run or an earlier one), if any. */
  | { state: "queued" | "scheduled" | "retry" | "running"; progress?: unknown }
  /** Nowhere: never enqueued, deleted, or succeeded with no record kept (keepCompleted, the 1-hour record of an awaited job). */
  | { state: "unknown" };

/** What a job's handler returns, awaited: the type enqueueAndWait answers (read back from JSON, so a Date arrives as its string). */
export type ResultOf<D> = D extends (...args: never[]) => infer R
  ? Awaited<R>
  : D extends { perform: (...args: never[]) => infer R }
    ? Awaited<R>
    : unknown;

export interface WaitOptions extends EnqueueOptions {
  /** How long to wait for the job to end; default 30,000 ms. Past it a WaitTimeoutError is thrown and the job goes on. */
  timeoutMs?: number;
}
