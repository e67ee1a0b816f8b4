// What an enqueue takes: a job's options and the jobs of a bulk enqueue,
// below the client that enqueues them and the capabilities that read them
// (flow control's `unique`, expiry's `expiresInMs`, debounce).
import type { ArgsOf, JobRegistry } from "./definition.js";

/**
 * - `while-executing`: never two runs of the key at once (a concurrency limit of 1 on it).
 * - `until-executed`: at most one job of the key queued or running; a duplicate
 *   enqueue writes nothing and returns the existing jid. The claim ends when the
 *   job succeeds or goes dead (a retry keeps it).
 * - `coalesce`: at most one job of the key waiting, never two running; a duplicate
 *   while one waits returns its jid, a duplicate while one runs queues one more run.
 */
export type UniqueMode = "while-executing" | "until-executed" | "coalesce";

/** Options of `tq.enqueue` (and of each job of `tq.enqueueBulk`). */
export interface EnqueueOptions {
  /**
   * Your own id for the job: enqueueing the same jid again, from any client
   * of the prefix, within the `idWindowMs` of the client that pushed it,
   * pushes nothing and returns that jid. Default: a new one.
   */
  jid?: string;
  /** The queue to push to; default the job's `queue`, else "default". */
  queue?: string;
  /** Run after this many milliseconds. */
  delayMs?: number;
  /** Run at this time. */
  at?: Date;
  /** Retries for this job: true (`maxRetries`), a number, or false; default the job's `retry`, else true. */
  retry?: boolean | number;
  /**
   * Start a tick right away, in the background (the scope's waitUntil, or
   * in-process), so the job starts within milliseconds instead of at the next
   * cron. At most `kick.max` kicked ticks run at once. Default: the scope's.
   */
  kick?: boolean;
  /** Unique execution by the job's `uniqueKey` ({@link UniqueMode}): while-executing, until-executed or coalesce. */
  unique?: UniqueMode;
  /**
   * Never start the job after this many milliseconds from now (Redis' clock):
   * a job still waiting then (queued, delayed, paused, waiting for a retry) is
   * recorded as expired when a tick fetches it, and never runs. Default: no expiry.
   */
  expiresInMs?: number;
  /**
   * An integer from -1,000 to 1,000: within its queue a job of higher priority starts first, equal
   * priorities in the order enqueued. Default the job's `priority`, else 0.
   */
  priority?: number;
  /** Its group for fair shares (a tenant's id): default the job's `group(args)`, else none. */
  group?: string;
}

/** One job of `tq.enqueueBulk`, unchecked: its name, its args and the options of `enqueue`. */
export interface BulkJob<Name extends string = string> extends EnqueueOptions {
  /** The job's name, a key of `jobs`. */
  name: Name;
  /** Its args. */
  args: unknown[];
}

/** One job of enqueueBulk: its args checked against its handler, as enqueue checks them. */
export type BulkJobOf<J extends JobRegistry> = {
  [K in keyof J & string]: EnqueueOptions & {
    /** The job's name, a key of `jobs`. */
    name: K;
    /** Its args, as its handler declares them. */
    args: ArgsOf<J[K]> extends unknown[] ? ArgsOf<J[K]> : unknown[];
  };
}[keyof J & string];
