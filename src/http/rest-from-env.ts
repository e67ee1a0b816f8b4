// The default Redis of the HTTP entries: Upstash's REST API from the env (or Vercel KV's names for it).
import type { RedisAdapter } from "../index.js";
import { restAdapter } from "../redis/rest.js";

/** A restAdapter over `UPSTASH_REDIS_REST_URL` and `_TOKEN` (or `KV_REST_API_*`); `where` says where a user sets them. */
export function restFromEnv(
  env: Record<string, string | undefined>,
  where = "in the environment, or pass `redis` (e.g. ioredisAdapter(new Redis(url)))",
): RedisAdapter {
  const url = env.UPSTASH_REDIS_REST_URL ?? env.KV_REST_API_URL;
  const token = env.UPSTASH_REDIS_REST_TOKEN ?? env.KV_REST_API_TOKEN;
  if (!url || !token)
    throw new Error(`tickq: set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN ${where}${tcpHint(env)}`);
  return restAdapter({ url, token });
}

// These entries never read REDIS_URL themselves (a TCP client is the app's to build and close), so
// a user who set it alone would otherwise be told only about Upstash's variables.
const tcpHint = (env: Record<string, string | undefined>): string =>
  env.REDIS_URL
    ? "; REDIS_URL is set, but this entry does not read it: for Redis over TCP pass " +
      "`redis: ioredisAdapter(new Redis(process.env.REDIS_URL))` (from tickq/adapters/ioredis and ioredis)"
    : "";
