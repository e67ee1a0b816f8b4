// What a job's code sees: its handler's signature, the context beside its
// args, and the middleware around each run.
import type { JobPayload } from "./payload.js";

/** A console-like logger: `ctx.log` in a handler, and the `logger` option. */
export interface JobLogger {
  /** Logs a line at info level. */
  info(message: string, ...rest: unknown[]): void;
  /** Logs a line at warn level. */
  warn(message: string, ...rest: unknown[]): void;
  /** Logs a line at error level. */
  error(message: string, ...rest: unknown[]): void;
}

/** What a job's handler gets beside its args. */
export interface JobContext {
  /** The job's id. */
  jid: string;
  /** The queue it was fetched from. */
  queue: string;
  /** 1 on the first run, 2 on the first retry, and so on. */
  attempt: number;
  /** Aborts at the tick's deadline (or if the tick loses its lease). */
  signal: AbortSignal;
  /** The `logger`, with the job's name and jid on each line; a failed run's last lines are kept in the job (`logLines`). */
  log: JobLogger;
  /** The whole job as stored in Redis. */
  payload: JobPayload;
  /**
   * Reports how far the job is (a number or small JSON, ≤ 4 KiB): buffered, and sent with the tick's
   * next call to Redis (a step, or its lease's extend), so `tq.jobs.result` and `find` show the last value
   * within about a third of the lease. Never a round trip of its own.
   */
  progress(value: unknown): void;
  /**
   * A flow job (unique, concurrency or rate limit): a number that grows with
   * every start, for downstream writes to refuse a stale run's. Undefined otherwise.
   */
  fence?: number;
}

/** A job's code: called with the enqueued args; a throw or a rejection is a failure, retried with backoff. */
export type JobHandler<A extends unknown[] = unknown[]> = (args: A, ctx: JobContext) => unknown;

/** A job as handed to middleware. */
export interface RunningJob {
  /** The job's name. */
  name: string;
  /** Its args. */
  args: unknown[];
  /** The whole job as stored in Redis. */
  payload: JobPayload;
}

/**
 * Code around every execution (`tq.use`): call `next()` to run the job, and return or rethrow what it settles to.
 * A plain function that calls `next()` and returns nothing is over when the job is; one that never calls it skips the job.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a plain middleware's inferred return type is void, not undefined
export type Middleware = (job: RunningJob, ctx: JobContext, next: () => Promise<unknown>) => Promise<unknown> | void;
