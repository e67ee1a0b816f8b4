/** Every error tickq throws on purpose; `code` tells which. */
export type TickqErrorCode = "UNKNOWN_JOB" | "BAD_ARGS" | "BAD_OPTIONS" | "REDIS" | "REDIS_TIMEOUT" | "REDIS_FULL";

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
