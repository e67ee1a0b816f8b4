// How workers and the driver's enqueuer reach the faulted Redis: ioredis
// through the TCP drop proxy (defaults kept: it resends unanswered commands
// after a reconnect), or @upstash/redis through the HTTP drop proxy and the
// local REST server (retries on: a dropped response is sent again).
import { Redis as UpstashRedis } from "@upstash/redis";
import { Redis } from "ioredis";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { upstashAdapter } from "../../src/redis/upstash.js";
import type { RedisAdapter } from "../../src/redis/types.js";

export type AdapterName = "ioredis" | "upstash";

export interface Endpoint {
  adapter: AdapterName;
  /** ioredis: redis://… of the TCP proxy; upstash: http://… of the HTTP proxy. */
  url: string;
  token?: string;
}

export function endpointEnv(e: Endpoint): Record<string, string> {
  return { CHAOS_ADAPTER: e.adapter, CHAOS_URL: e.url, CHAOS_TOKEN: e.token ?? "" };
}

export function endpointFromEnv(env: NodeJS.ProcessEnv): Endpoint {
  const adapter = env.CHAOS_ADAPTER === "upstash" ? "upstash" : "ioredis";
  return { adapter, url: env.CHAOS_URL ?? "", token: env.CHAOS_TOKEN };
}

export function openEndpoint(e: Endpoint): { adapter: RedisAdapter; close(): void } {
  if (e.adapter === "ioredis") {
    const client = new Redis(e.url);
    client.on("error", () => {});
    return { adapter: ioredisAdapter(client), close: () => client.disconnect() };
  }
  const client = new UpstashRedis({
    url: e.url,
    token: e.token ?? "",
    automaticDeserialization: false,
    enableTelemetry: false,
    readYourWrites: false,
    retry: { retries: 5, backoff: (n) => 25 * 2 ** n },
  });
  return { adapter: upstashAdapter(client), close: () => {} };
}
