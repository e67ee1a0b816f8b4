/** Every error tickq throws on purpose; `code` tells which. */
export type TickqErrorCode =
  | "UNKNOWN_JOB"
  | "BAD_ARGS"
  | "BAD_OPTIONS"
  | "REDIS"
  | "REDIS_TIMEOUT"
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
  | "NOT_REPLICATED";

export class TickqError extends Error {
  constructor(
    readonly code: TickqErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "TickqError";
  }
}
