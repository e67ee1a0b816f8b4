// The HTTP status of each TickqError a request can cause (the API answers
// it as JSON, the dashboard as a page); any other error is a 500.
import { TickqError } from "../errors.js";

const STATUS = {
  UNKNOWN_JOB: 400,
  UNKNOWN_QUEUE: 400,
  BAD_ARGS: 400,
  BAD_STATE: 400,
  BAD_CURSOR: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  JOB_TOO_LARGE: 413,
  REDIS: 503,
  REDIS_TIMEOUT: 503,
  NOT_REPLICATED: 503,
} as const;

export type ErrorStatus = (typeof STATUS)[keyof typeof STATUS];

/** The status a TickqError maps to, or undefined for an error that is the server's fault. */
export function statusOf(error: unknown): ErrorStatus | undefined {
  return error instanceof TickqError && Object.hasOwn(STATUS, error.code)
    ? STATUS[error.code as keyof typeof STATUS]
    : undefined;
}
