// The Node server's Redis: ioredis tuned to fail fast and clearly. With
// Redis down, a request answers 503 within a second or two with "Redis at
// … is unreachable", not ioredis' retry internals after 10 s; an outage is
// logged once, then at a backoff (redis-watch.ts), not at every reconnect;
// a password in the URL is never printed.
import { Cluster, Redis } from "ioredis";
import { ioredisAdapter } from "../../redis/ioredis.js";
import { ioredisFromUrl, redisUrls } from "../../redis/ioredis-url.js";
import { TickqError, type RedisAdapter } from "../../index.js";
import { printable } from "../../printable.js";
import { redactUrl } from "../../redact.js";
import { redisWatch, type RedisWatch } from "./redis-watch.js";

export { redactUrl };

export interface ServerRedis {
  adapter: RedisAdapter;
  /** Whether Redis is down, and which errors and lines only repeat that. */
  watch: RedisWatch;
  close(): void;
}

/**
 * With `cluster`, `url` names a Redis Cluster's node, or several comma-separated (REDIS_URL with
 * REDIS_CLUSTER=1): an ioredis Cluster, whose adapter says `cluster: true`.
 */
export function connectRedis(
  url: string,
  log: (line: string) => void = console.error,
  options: { cluster?: boolean } = {},
): ServerRedis {
  const shown = redisUrls(url).map(redactUrl).join(",");
  const retryStrategy = (n: number) => Math.min(n * 100, 1_000);
  const redis = ioredisFromUrl({ Redis, Cluster }, url, {
    cluster: options.cluster === true,
    redis: { maxRetriesPerRequest: 1, connectTimeout: 1_000, retryStrategy },
    clusterOptions: { clusterRetryStrategy: retryStrategy },
  });
  const watch = redisWatch(shown, log, (message) => new TickqError("REDIS", message));
  redis.on("error", (error: Error) => watch.failed(printable(error.message)));
  redis.on("ready", () => watch.ready());
  const inner = ioredisAdapter(redis);
  // Once a connection attempt has failed, calls fail at once instead of
  // waiting in ioredis' offline queue; the tick resends its own for a while.
  const guard = <T>(call: () => Promise<T>): Promise<T> =>
    redis.status !== "ready" && watch.down() !== undefined ? Promise.reject(watch.unreachable()) : call();
  return {
    adapter: {
      cluster: inner.cluster === true,
      evalsha: (sha, keys, args) => guard(() => inner.evalsha(sha, keys, args)),
      eval: (script, keys, args) => guard(() => inner.eval(script, keys, args)),
    },
    watch,
    close: () => redis.disconnect(),
  };
}
