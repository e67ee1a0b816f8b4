// Starts the Upstash-compatible REST server on Node.
import { serve, type ServerType } from "@hono/node-server";
import { Redis } from "ioredis";
import { createUpstashLocalApp } from "./app.js";

export interface UpstashLocalServer {
  url: string;
  token: string;
  /** Requests served so far. */
  requests(): number;
  close(): Promise<void>;
}

export async function startUpstashLocal(options: { redisUrl: string; token: string; port?: number; latencyMs?: number }): Promise<UpstashLocalServer> {
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 1 });
  redis.on("error", () => {});
  let requests = 0;
  const app = createUpstashLocalApp({ redis, token: options.token, latencyMs: options.latencyMs, onRequest: () => void requests++ });
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  return {
    url: `http://127.0.0.1:${port}`,
    token: options.token,
    requests: () => requests,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      redis.disconnect();
    },
  };
}
