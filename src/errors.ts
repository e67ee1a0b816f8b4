/** Every error tickq throws on purpose; `code` tells which. */
export class TickqError extends Error {
  constructor(
    readonly code: "UNKNOWN_JOB" | "BAD_ARGS" | "BAD_OPTIONS" | "REDIS" | "REDIS_TIMEOUT",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "TickqError";
  }
}
