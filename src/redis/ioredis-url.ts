// An ioredis client from a REDIS_URL, for the CLI and the Node server: one
// Redis, or with `cluster` a Redis Cluster whose REDIS_URL names one node or
// several, comma-separated (each a seed: the client learns the rest from the
// cluster). User, password and TLS (rediss://) come from the first URL and go
// to every node. The ioredis module is passed in, so the CLI can import it
// only when it connects (an optional peer dependency).
import type { Cluster, ClusterOptions, Redis, RedisOptions } from "ioredis";

/** The two constructors of the ioredis module. */
export interface IoredisModule {
  Redis: typeof Redis;
  Cluster: typeof Cluster;
}

/** The seed URLs of a REDIS_URL: one, or several comma-separated. */
export function redisUrls(url: string): string[] {
  return url
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

/** A cluster node's address, and the options every node shares, from its URL. */
function nodeOf(url: string): { host: string; port: number; options: RedisOptions } {
  const parsed = new URL(url);
  const options: RedisOptions = {};
  if (parsed.username) options.username = decodeURIComponent(parsed.username);
  if (parsed.password) options.password = decodeURIComponent(parsed.password);
  if (parsed.protocol === "rediss:") options.tls = {};
  return { host: parsed.hostname, port: Number(parsed.port || 6379), options };
}

/** Refuses a URL of another scheme (http://, a REST URL): ioredis would read it as a socket path ("connect ENOENT"). */
export function checkScheme(url: string): void {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    checkMangledScheme(url);
    return;
  }
  if (scheme === "redis" || scheme === "rediss") return;
  const rest =
    scheme === "http" || scheme === "https"
      ? "; for Redis over HTTP (Upstash's REST API) set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN instead of REDIS_URL"
      : "";
  throw new Error(`REDIS_URL must start with redis:// (or rediss:// for TLS), not ${scheme}://${rest}`);
}

/**
 * Refuses a scheme with its "://" mistyped ("rediss//host", "redis:/host"): ioredis reads the rest as a
 * socket path and retries "connect ENOENT //host" forever. The URL itself is not echoed: it may hold a password.
 * "host:port" and a socket path ("/tmp/redis.sock") stay accepted, as ioredis reads them.
 */
function checkMangledScheme(url: string): void {
  const [typed, scheme] = /^(rediss?|https?)(?::\/(?!\/)|\/\/)/i.exec(url) ?? [];
  if (typed === undefined || scheme === undefined) return;
  throw new Error(
    `REDIS_URL starts with "${typed}", not "${scheme.toLowerCase()}://": write it as redis://host:6379 (rediss:// for TLS)`,
  );
}

export function ioredisFromUrl(
  io: IoredisModule,
  url: string,
  how: { cluster: boolean; redis: RedisOptions; clusterOptions?: Omit<ClusterOptions, "redisOptions"> },
): Redis | Cluster {
  const urls = redisUrls(url);
  for (const each of urls) checkScheme(each);
  if (!how.cluster) {
    if (urls.length > 1)
      throw new Error(
        `REDIS_URL names ${urls.length} nodes: that is a Redis Cluster's seeds; say so with REDIS_CLUSTER=1 (the CLI: --cluster)`,
      );
    return new io.Redis(urls[0] ?? url, how.redis);
  }
  const nodes = urls.map(nodeOf);
  return new io.Cluster(
    nodes.map(({ host, port }) => ({ host, port })),
    { ...how.clusterOptions, redisOptions: { ...how.redis, ...nodes[0]?.options } },
  );
}
