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
  if (!url || !token) throw new Error(`tickq: set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN ${where}`);
  return restAdapter({ url, token });
}
