// Starts the Upstash-compatible REST server on Node.
import { Redis } from "ioredis";
import { listen } from "../../src/platforms/node/listen.js";
import { createUpstashLocalApp } from "./app.js";

/** A running local Upstash-compatible REST server. */
export interface UpstashLocalServer {
  /** Its URL: UPSTASH_REDIS_REST_URL for a client. */
  url: string;
  /** The token it accepts: UPSTASH_REDIS_REST_TOKEN. */
  token: string;
  /** Requests served so far. */
  requests(): number;
  /** Stops the server and its Redis connection. */
  close(): Promise<void>;
}

/** Serves the Upstash REST protocol over the Redis at `redisUrl`, for local development and tests (not for production). */
export async function startUpstashLocal(options: {
  redisUrl: string;
  token: string;
  port?: number;
  latencyMs?: number;
  insecureToken?: boolean;
  anyScript?: boolean;
}): Promise<UpstashLocalServer> {
  let requests = 0;
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 1 });
  redis.on("error", () => {});
  let server: Awaited<ReturnType<typeof listen>>;
  try {
    const app = createUpstashLocalApp({
      redis,
      token: options.token,
      latencyMs: options.latencyMs,
      insecureToken: options.insecureToken,
      anyScript: options.anyScript,
      onRequest: () => void requests++,
    });
    server = await listen(app.fetch, options.port ?? 0);
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  return {
    url: server.url,
    token: options.token,
    requests: () => requests,
    close: async () => {
      await server.close();
      redis.disconnect();
    },
  };
}
