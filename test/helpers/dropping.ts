// An adapter whose transport can drop the reply to the next script call
// after Redis has run it, so the client resends it as it would after a lost
// connection: ioredis through a TCP proxy (autoResendUnfulfilledCommands),
// @upstash/redis and restAdapter through an HTTP proxy (their retries).
import { Redis as UpstashRedis } from "@upstash/redis";
import { inject } from "vitest";
import { restAdapter } from "../../src/redis/rest.js";
import { upstashAdapter } from "../../src/redis/upstash.js";
import { startDropProxy } from "../../bench/chaos/drop-proxy.js";
import { startHttpDropProxy } from "../../bench/chaos/http-drop-proxy.js";
import type { RedisAdapter } from "../../src/types.js";
import { speaksTcp } from "./adapters.js";
import { openAdapter } from "./open-adapter.js";

export interface DroppingAdapter {
  adapter: RedisAdapter;
  /** Drops the reply to the next script call; resolves once it did. */
  dropNext(): Promise<boolean>;
  close(): Promise<void>;
}

export async function openDropping(name: string): Promise<DroppingAdapter> {
  if (speaksTcp(name)) {
    const target = new URL(inject("redisUrl"));
    const proxy = await startDropProxy(Number(target.port || 6379), target.hostname);
    const opened = openAdapter(name, { redisUrl: proxy.url, restUrl: "", restToken: "" });
    return {
      adapter: opened.adapter,
      dropNext: () => proxy.dropNextReply(10_000),
      close: async () => {
        await opened.close();
        await proxy.close();
      },
    };
  }
  const proxy = await startHttpDropProxy(inject("restUrl"));
  if (name === "rest") {
    const adapter = restAdapter({ url: proxy.url, token: inject("restToken"), retries: 5, backoffMs: () => 20 });
    return { adapter, dropNext: () => proxy.dropNextResponse(10_000), close: proxy.close };
  }
  const client = new UpstashRedis({
    url: proxy.url,
    token: inject("restToken"),
    automaticDeserialization: false,
    enableTelemetry: false,
    readYourWrites: false,
    retry: { retries: 5, backoff: () => 20 },
  });
  return { adapter: upstashAdapter(client), dropNext: () => proxy.dropNextResponse(10_000), close: proxy.close };
}
