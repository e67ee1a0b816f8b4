// expiresInMs at enqueue: checked here, written as the job's first member
// (`tickq_expires_in`), which enqueue.lua turns into `tickq_expires_at` by
// Redis' clock (lib/expiry/stamp-expiry.lua). First, so a fetch tells a job
// with an expiry from one without by one byte (lib/expiry/expire-fetched.lua).
import { TickqError } from "../errors.js";

/** The member enqueue.lua reads and replaces; it must open the job's JSON. */
export const EXPIRES_IN_FIELD = "tickq_expires_in";

/** The longest expiry accepted: a year. */
const MAX_EXPIRES_IN_MS = 365 * 86_400_000;

/**
 * `{ tickq_expires_in }` to put before the job's own fields, or nothing without an expiry.
 * `flow`: the job has flow control (unique keys, limits), which expiry does not combine with.
 */
export function expiryHead(name: string, expiresInMs: number | undefined, flow: boolean): Record<string, number> {
  if (expiresInMs === undefined) return {};
  if (!Number.isInteger(expiresInMs) || expiresInMs < 1 || expiresInMs > MAX_EXPIRES_IN_MS)
    throw new TickqError(
      "BAD_ARGS",
      `Job "${name}": expiresInMs must be an integer from 1 to ${MAX_EXPIRES_IN_MS} (a year), got ${String(expiresInMs)}`,
    );
  if (flow)
    throw new TickqError(
      "BAD_ARGS",
      `Job "${name}": expiresInMs does not combine with flow control (uniqueKey, concurrency, rateLimit) yet`,
    );
  return { [EXPIRES_IN_FIELD]: expiresInMs };
}
