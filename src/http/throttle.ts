// Slows down guessing: a client with 10 failed logins or bearer tokens in a
// minute is refused (429, Retry-After) until its minute ends, whatever it
// sends, so a correct guess in that time teaches it nothing. The count is a
// fixed window in Redis, shared by every instance. Who a client is comes
// from what the platform vouches for (clientOf): a header a caller could
// set freely would give an attacker a fresh count per request. With Redis
// unreachable the check lets the request through: auth does not need Redis,
// and the API answers 503 anyway.
import type { Context } from "hono";
import type { AuthGuards } from "../admin/guards.js";
import type { JobRegistry, Tickq } from "../index.js";

export { THROTTLE_LIMIT, THROTTLE_WINDOW_MS } from "../admin/guards.js";

/**
 * The client a request comes from (an address), or undefined when unknown: then nothing is throttled.
 * @inline
 */
export type ClientOf = (c: Context) => string | undefined;

/**
 * Slows down a client's repeated auth failures.
 * @inline
 */
export interface Throttle {
  /** Who a request comes from. */
  clientOf: ClientOf;
  /** Milliseconds until `client` may try again; 0 when it may now. */
  blockedFor(client: string): Promise<number>;
  /** Counts one failure of `client`. */
  failed(client: string): Promise<void>;
}

/** The throttle kept in `tickq`'s Redis (`tq.guards`, lua/throttle.lua); undefined for an object without guards. */
export function redisThrottle(tickq: Tickq<JobRegistry>, clientOf: ClientOf): Throttle | undefined {
  const guards: AuthGuards | undefined = (tickq as Partial<Tickq<JobRegistry>>).guards;
  if (!guards) return undefined;
  return {
    clientOf,
    // With Redis unreachable (or partitions: "auto" before its count is found) a failure counts as none.
    blockedFor: (client) => guards.blockedFor(client).catch(() => 0),
    failed: (client) => guards.failed(client).catch(() => undefined),
  };
}

/** The entries' clientOf: Node's socket address. */
export const nodeClient: ClientOf = (c) =>
  (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress;
/** Cloudflare sets cf-connecting-ip on every request; a caller cannot. */
export const workerClient: ClientOf = (c) => c.req.header("cf-connecting-ip");
/** Vercel sets x-real-ip to the caller's address, overwriting any sent. */
export const vercelClient: ClientOf = (c) => c.req.header("x-real-ip");
