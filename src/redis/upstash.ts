// tickq over @upstash/redis (HTTP: Cloudflare Workers, Vercel Edge, Node).
// Every call is one HTTP request. The client must be built with
// `automaticDeserialization: false`: by default it JSON-parses replies, so
// the job string "…" would come back as an object and "123" as 123 — tickq
// moves job strings byte for byte and must get back exactly what it stored.
/**
 * The Redis adapter for an `@upstash/redis` client (HTTP).
 *
 * @module tickq/adapters/upstash
 */
import type { Redis } from "@upstash/redis";
import { TickqError } from "../errors.js";
import type { RedisAdapter, RedisReply } from "./types.js";

const FIX =
  "build the client with automaticDeserialization off: new Redis({ url, token, automaticDeserialization: false })";

/**
 * The adapter over an `@upstash/redis` client, which must be built with `automaticDeserialization: false`
 * (tickq refuses one that is not).
 * @example
 * const redis = new Redis({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN, automaticDeserialization: false });
 * const tq = createTickq({ redis: upstashAdapter(redis), jobs });
 */
export function upstashAdapter(redis: Redis): RedisAdapter {
  const options = (redis as unknown as { opts?: { automaticDeserialization?: boolean } }).opts;
  if (options?.automaticDeserialization !== false) {
    throw new TickqError("BAD_OPTIONS", `upstashAdapter: the @upstash/redis client parses replies as JSON; ${FIX}`);
  }
  return {
    evalsha: async (sha, keys, args) => checked(await redis.evalsha(sha, keys, args)),
    eval: async (script, keys, args) => checked(await redis.eval(script, keys, args)),
    separateRequests: true,
  };
}

/** A reply holding objects or booleans was parsed by the client: refuse it. */
function checked(reply: unknown): RedisReply {
  if (reply === null || typeof reply === "string" || typeof reply === "number") return reply;
  if (Array.isArray(reply)) return reply.map(checked);
  throw new TickqError("BAD_OPTIONS", `upstashAdapter: got a parsed reply (${typeof reply}); ${FIX}`);
}
