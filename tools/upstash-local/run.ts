// Runs the local Upstash-compatible REST server until SIGINT/SIGTERM, over
// REDIS_URL, else 127.0.0.1:6379, else a private redis-server; prints the
// URL and token to point a Worker at. Shared by `npm run redis-http` and
// `tickq redis-http`.
import { randomBytes } from "node:crypto";
import { redactUrl } from "../../src/redact.js";
import { redisUrls } from "../../src/redis/ioredis-url.js";
import { findRedis, type FoundRedis } from "../../src/platforms/node/find-redis.js";
import { stopOnSignals } from "../../src/platforms/node/listen.js";
import { startUpstashLocal, type UpstashLocalServer } from "./server.js";

/** Options of `runRedisHttp`. */
export interface RedisHttpOptions {
  /** Default 8079. */
  port?: number;
  /** Default: a random one, printed. */
  token?: string;
  /** Accept a token under 16 characters. */
  insecureToken?: boolean;
  /** Run any Lua script, not only tickq's (see UpstashLocalOptions.anyScript). */
  anyScript?: boolean;
  /** Added to every request, to feel a remote Redis; default 0. */
  latencyMs?: number;
  /** The Redis to serve over (`tickq redis-http` finds it as its other server commands do); default `findRedis()`. */
  redis?: FoundRedis;
  /** Where the URL and token are printed; default console.log. */
  print?: (line: string) => void;
}

/**
 * `tickq redis-http`: finds a Redis (`findRedis`), serves the local REST server over it on port 8079,
 * prints its URL and token, and stops on SIGINT or SIGTERM.
 */
export async function runRedisHttp(options: RedisHttpOptions = {}): Promise<UpstashLocalServer> {
  const print = options.print ?? console.log;
  const redis = options.redis ?? (await findRedis());
  const token = options.token ?? randomBytes(18).toString("base64url");
  const latencyMs = options.latencyMs ?? 0;
  const server = await startUpstashLocal({
    redisUrl: redis.url,
    token,
    port: options.port ?? 8079,
    latencyMs,
    insecureToken: options.insecureToken,
    anyScript: options.anyScript,
  });
  print(
    `Upstash-compatible REST server over ${redisUrls(redis.url).map(redactUrl).join(",")}${latencyMs ? ` (+${latencyMs} ms a request)` : ""}`,
  );
  print(`  UPSTASH_REDIS_REST_URL=${server.url}`);
  print(`  UPSTASH_REDIS_REST_TOKEN=${token}`);
  stopOnSignals(async () => {
    await server.close();
    await redis.stop();
  });
  return server;
}
