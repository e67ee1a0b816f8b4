// An adapter whose transport can drop the reply to the next script call
// after Redis has run it, so the client resends it as it would after a lost
// connection: ioredis through a TCP proxy (autoResendUnfulfilledCommands),
// @upstash/redis and restAdapter through an HTTP proxy (their retries);
// ioredis' Cluster client through one such TCP proxy per master.
import { Redis as UpstashRedis } from "@upstash/redis";
import { Cluster } from "ioredis";
import { inject } from "vitest";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { restAdapter } from "../../src/redis/rest.js";
import { upstashAdapter } from "../../src/redis/upstash.js";
import { startDropProxy } from "../../bench/chaos/drop-proxy.js";
import { startHttpDropProxy } from "../../bench/chaos/http-drop-proxy.js";
import type { RedisAdapter } from "../../src/redis/types.js";
import { speaksTcp } from "./adapters.js";
import { clusterMasters } from "./cluster-slot.js";
import { openAdapter } from "./open-adapter.js";

export interface DroppingAdapter {
  adapter: RedisAdapter;
  /** Drops the reply to the next script call; resolves once it did. */
  dropNext(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * ioredis' Cluster client through a drop proxy in front of each master: natMap sends it to the proxies for
 * the addresses the cluster announces. Every proxy is armed; only the master of the test's slot sees scripts.
 */
async function openDroppingCluster(): Promise<DroppingAdapter> {
  const masters = await clusterMasters(inject("clusterUrl"));
  const proxies = await Promise.all(masters.map((m) => startDropProxy(m.port, m.host)));
  const natMap = Object.fromEntries(
    masters.map((m, i) => [`${m.host}:${m.port}`, { host: "127.0.0.1", port: Number(new URL(proxies[i]!.url).port) }]),
  );
  const client = new Cluster([{ host: "127.0.0.1", port: Number(new URL(proxies[0]!.url).port) }], {
    natMap,
    redisOptions: { maxRetriesPerRequest: 1 },
  });
  client.on("error", () => {});
  const dropNext = (): Promise<boolean> =>
    new Promise((resolve) => {
      const armed = proxies.map((p) => p.dropNextReply(10_000).then((dropped) => dropped && resolve(true)));
      void Promise.all(armed).then(() => resolve(false));
    });
  return {
    adapter: ioredisAdapter(client),
    dropNext,
    close: async () => {
      client.disconnect();
      await Promise.all(proxies.map((p) => p.close()));
    },
  };
}

export async function openDropping(name: string): Promise<DroppingAdapter> {
  if (name === "cluster") return openDroppingCluster();
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
