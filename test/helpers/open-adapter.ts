// Opens an adapter by name, from plain URLs (for `cluster`, redisUrl is one
// node of the cluster): free of vitest, so a child process
// (test/fixtures/tick-child.ts) opens the very same adapter as the test that
// spawned it.
import { Redis as UpstashRedis } from "@upstash/redis";
import { Cluster, Redis } from "ioredis";
import { createClient } from "redis";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { nodeRedisAdapter } from "../../src/redis/node-redis.js";
import { restAdapter } from "../../src/redis/rest.js";
import { upstashAdapter } from "../../src/redis/upstash.js";
import type { RedisAdapter } from "../../src/redis/types.js";

export interface Endpoints {
  redisUrl: string;
  restUrl: string;
  restToken: string;
}

export interface OpenedAdapter {
  adapter: RedisAdapter;
  close(): Promise<void>;
}

export function upstashClient(url: string, token: string): UpstashRedis {
  return new UpstashRedis({
    url,
    token,
    automaticDeserialization: false,
    enableTelemetry: false,
    readYourWrites: false,
    retry: false,
  });
}

export function openAdapter(name: string, endpoints: Endpoints): OpenedAdapter {
  if (name === "ioredis") {
    const client = new Redis(endpoints.redisUrl, { maxRetriesPerRequest: 1 });
    client.on("error", () => {});
    return { adapter: ioredisAdapter(client), close: async () => void client.disconnect() };
  }
  if (name === "upstash") {
    return { adapter: upstashAdapter(upstashClient(endpoints.restUrl, endpoints.restToken)), close: async () => {} };
  }
  if (name === "rest") {
    return {
      adapter: restAdapter({ url: endpoints.restUrl, token: endpoints.restToken, retries: 0 }),
      close: async () => {},
    };
  }
  if (name === "node-redis") {
    // Calls made before the connection is ready wait in node-redis' offline queue, so opening stays synchronous.
    const client = createClient({ url: endpoints.redisUrl });
    client.on("error", () => {});
    client.connect().catch(() => {});
    return {
      adapter: nodeRedisAdapter(client),
      close: async () => {
        if (client.isOpen) client.destroy();
      },
    };
  }
  if (name === "cluster") {
    // ioredis' Cluster client, from one node of the cluster (endpoints.redisUrl): it finds the others itself.
    const seed = new URL(endpoints.redisUrl);
    const client = new Cluster([{ host: seed.hostname, port: Number(seed.port || 6379) }], {
      redisOptions: { maxRetriesPerRequest: 1 },
    });
    client.on("error", () => {});
    return { adapter: ioredisAdapter(client), close: async () => void client.disconnect() };
  }
  throw new Error(`unknown adapter ${name}`);
}
