// Slows down guessing: a client with 10 failed logins or bearer tokens in a
// minute is refused (429, Retry-After) until its minute ends, whatever it
// sends, so a correct guess in that time teaches it nothing. The count is a
// fixed window in Redis, shared by every instance. Who a client is comes
// from what the platform vouches for (clientOf): a header a caller could
// set freely would give an attacker a fresh count per request. With Redis
// unreachable the check lets the request through: auth does not need Redis,
// and the API answers 503 anyway.
import type { Context } from "hono";
import type { JobRegistry, Tickq } from "../index.js";
import { defineCall, key, number, text } from "../protocol/define.js";
import { runCall } from "../protocol/run.js";
import type { Runtime } from "../tick/runtime.js";
import { pendingRuntimes, runtimes } from "../recurring/internal.js";
import type { LuaScript } from "../redis/types.js";

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

/** Failures a client may have in one window before it is refused. */
export const THROTTLE_LIMIT = 10;
export const THROTTLE_WINDOW_MS = 60_000;

// throttle: KEYS[1] P.."auth-failures:"..client, a set of failed attempts'
// ids. ARGV: [1] prefix, [2] "check" | "fail", [3] window ms, [4] limit,
// [5] the attempt's id (fail). Returns the ms until the client may try
// again (0: now). The first failure starts the window; the set expires with
// it. A refused client is not counted again (the check comes first), so the
// set holds about `limit` ids at most. Replays: a resent "fail" adds an id
// already there and finds the window set, so it counts once; "check" only
// reads.
export const throttleScript: LuaScript = {
  name: "throttle",
  text: `local k=KEYS[1]
if ARGV[2]=='fail' then
redis.call('SADD',k,ARGV[5])
if redis.call('PTTL',k)<0 then redis.call('PEXPIRE',k,ARGV[3]) end
end
if redis.call('SCARD',k)<tonumber(ARGV[4]) then return 0 end
return math.max(redis.call('PTTL',k),1)`,
};

const throttleCall = defineCall(
  throttleScript,
  { failures: key },
  { op: text, windowMs: number, limit: number, attempt: text },
  number,
);

/** The throttle of `tickq`'s Redis and prefix; undefined for a tickq not made by createTickq. */
export function redisThrottle(tickq: Tickq<JobRegistry>, clientOf: ClientOf): Throttle | undefined {
  const known: Runtime | undefined = runtimes.get(tickq);
  const pending = pendingRuntimes.get(tickq);
  if (!known && !pending) return undefined;
  // An address is short; anything longer is cut, so a key stays small.
  const key = (runtime: Runtime, client: string) => `${runtime.prefix}auth-failures:${client.slice(0, 64)}`;
  const call = async (op: "check" | "fail", client: string) => {
    try {
      // With partitions: "auto" the runtime exists once the count is found (a failure here counts as none).
      const runtime = known ?? (await pending!());
      return await runCall(
        runtime,
        throttleCall,
        { failures: key(runtime, client) },
        {
          op,
          windowMs: THROTTLE_WINDOW_MS,
          limit: THROTTLE_LIMIT,
          attempt: op === "fail" ? crypto.randomUUID() : "",
        },
      );
    } catch {
      return 0;
    }
  };
  return {
    clientOf,
    blockedFor: (client) => call("check", client),
    failed: async (client) => void (await call("fail", client)),
  };
}

/** The entries' clientOf: Node's socket address. */
export const nodeClient: ClientOf = (c) =>
  (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress;
/** Cloudflare sets cf-connecting-ip on every request; a caller cannot. */
export const workerClient: ClientOf = (c) => c.req.header("cf-connecting-ip");
/** Vercel sets x-real-ip to the caller's address, overwriting any sent. */
export const vercelClient: ClientOf = (c) => c.req.header("x-real-ip");
