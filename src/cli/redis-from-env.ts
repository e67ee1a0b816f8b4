// Where every command's Redis comes from, read in one place so each says the same: REDIS_URL (TCP,
// ioredis; with --cluster a Redis Cluster's node or nodes), else UPSTASH_REDIS_REST_URL and
// UPSTASH_REDIS_REST_TOKEN (HTTP). `dev`, `serve` and `redis-http` run a server over TCP: with neither
// set they use 127.0.0.1:6379 or a private redis-server (src/cli/dev/redis.ts). Every message names the
// variable to set and shows a URL with its password masked.
import { checkScheme, redisUrls } from "../redis/ioredis-url.js";
import { redactUrl } from "../redact.js";
import { UsageError } from "./exit.js";

export type RedisFromEnv = { kind: "tcp"; url: string } | { kind: "rest"; url: string; token: string };

/** What a command says when nothing names a Redis. */
export const NO_REDIS =
  "no Redis set: set REDIS_URL (redis://host:6379), or UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN";

/** The Redis the env names, checked (a REDIS_URL of another scheme, half of Upstash's pair: a usage error); none: undefined. */
export function redisFromEnv(env: NodeJS.ProcessEnv): RedisFromEnv | undefined {
  const url = env.REDIS_URL?.trim();
  if (url) {
    try {
      for (const each of redisUrls(url)) checkScheme(each);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    return { kind: "tcp", url };
  }
  const rest = env.UPSTASH_REDIS_REST_URL?.trim();
  const token = env.UPSTASH_REDIS_REST_TOKEN?.trim();
  if (rest && token) return { kind: "rest", url: rest, token };
  if (rest) throw new UsageError("UPSTASH_REDIS_REST_URL is set without UPSTASH_REDIS_REST_TOKEN: set both");
  if (token) throw new UsageError("UPSTASH_REDIS_REST_TOKEN is set without UPSTASH_REDIS_REST_URL: set both");
  return undefined;
}

/** A REDIS_URL as a message shows it: each node's password masked. */
export const shownUrl = (url: string): string => redisUrls(url).map(redactUrl).join(",");

/** What a command says when the Redis it was given does not answer. */
export function unreachable(shown: string, why: string): string {
  return `Redis at ${shown} is unreachable (${why}): is it running? Check REDIS_URL`;
}
