// The Node server's Redis: ioredis tuned to fail fast and clearly. With
// Redis down, a request answers 503 within a second or two with "Redis at
// … is unreachable", not ioredis' retry internals after 10 s; errors are
// logged once per change, not at every reconnect; a password in the URL is
// never printed.
import { Cluster, Redis } from "ioredis";
import { ioredisAdapter } from "../../redis/ioredis.js";
import { ioredisFromUrl, redisUrls } from "../../redis/ioredis-url.js";
import { TickqError, type RedisAdapter } from "../../index.js";
import { printable } from "../../printable.js";
import { redactUrl } from "../../redact.js";

export { redactUrl };

export interface ServerRedis {
  adapter: RedisAdapter;
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
  let down: string | undefined;
  redis.on("error", (error: Error) => {
    if (error.message !== down) log(`tickq: Redis at ${shown}: ${printable(error.message)}`);
    down = error.message;
  });
  redis.on("ready", () => {
    if (down !== undefined) log(`tickq: Redis at ${shown} is back`);
    down = undefined;
  });
  const inner = ioredisAdapter(redis);
  // Once a connection attempt has failed, calls fail at once instead of
  // waiting in ioredis' offline queue; the tick resends its own for a while.
  const guard = <T>(call: () => Promise<T>): Promise<T> =>
    redis.status !== "ready" && down !== undefined
      ? Promise.reject(
          new TickqError("REDIS", `Redis at ${shown} is unreachable (${down}): is it running? Check REDIS_URL`),
        )
      : call();
  return {
    adapter: {
      cluster: inner.cluster === true,
      evalsha: (sha, keys, args) => guard(() => inner.evalsha(sha, keys, args)),
      eval: (script, keys, args) => guard(() => inner.eval(script, keys, args)),
    },
    close: () => redis.disconnect(),
  };
}
