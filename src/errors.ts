/**
 * Every error tickq throws on purpose; `code` tells which.
 * @inline
 */
export type TickqErrorCode =
  /** enqueue named a job that `jobs` (or `ordered`) does not declare. */
  | "UNKNOWN_JOB"
  /** enqueue sent a job to a queue that the tickq's declared `queues` and jobs do not name (see allowUndeclaredQueues). */
  | "UNKNOWN_QUEUE"
  /** A call's arguments are malformed: not JSON-safe args, a bad queue name, a bad delay. */
  | "BAD_ARGS"
  /** createTickq's options (or a tick's) are malformed; the message names the option. */
  | "BAD_OPTIONS"
  /** Redis answered with an error, or could not be reached. */
  | "REDIS"
  /** A Redis call took longer than `redisTimeoutMs`. */
  | "REDIS_TIMEOUT"
  /** Redis is at maxmemory and refused a write: nothing was written. */
  | "REDIS_FULL"
  /** No job with that jid in any state (it ran, or never existed). */
  | "NOT_FOUND"
  /** A state name tickq does not know, or one the operation does not take. */
  | "BAD_STATE"
  /** A list cursor that is malformed or belongs to another listing. */
  | "BAD_CURSOR"
  /** The job is where the operation cannot act: running in a tick, already queued. */
  | "CONFLICT"
  /** A job whose stored text is over `maxJobBytes`: refused, nothing written. */
  | "JOB_TOO_LARGE"
  /** With `durability`, a write that fewer replicas than asked confirmed in time: it may be lost in a failover, retry it. */
  | "NOT_REPLICATED"
  /** An awaited job ended failed or dead (`JobFailedError` carries its error). */
  | "JOB_FAILED"
  /** enqueueAndWait's timeoutMs passed before the job ended; the job goes on. */
  | "WAIT_TIMEOUT"
  /** An awaited job succeeded, but its result was not kept (over maxResultBytes, not JSON). */
  | "RESULT_NOT_KEPT"
  /** An awaited job's expiry (`expiresInMs`) passed before it started: it never runs. */
  | "JOB_EXPIRED"
  /** A workflow run ended failed or cancelled (`WorkflowFailedError`), or a step's result or a run's input is over its limit. */
  | "WORKFLOW_FAILED"
  /** A workflow run did not end within `result`'s timeoutMs; it goes on. */
  | "WORKFLOW_TIMEOUT";

/**
 * Every error tickq throws on purpose, with a `code` to switch on: UNKNOWN_JOB, UNKNOWN_QUEUE, BAD_ARGS,
 * BAD_OPTIONS, REDIS, REDIS_TIMEOUT, REDIS_FULL, NOT_FOUND, BAD_STATE, BAD_CURSOR, CONFLICT,
 * JOB_TOO_LARGE, NOT_REPLICATED. Its message never carries credentials.
 */
export class TickqError extends Error {
  constructor(
    /** Which error this is (see the class): stable across versions, unlike the message. */
    readonly code: TickqErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "TickqError";
  }
}
