// An adapter whose transport can drop the reply to the next script call
// after Redis has run it, so the client resends it as it would after a lost
// connection: ioredis through a TCP proxy (autoResendUnfulfilledCommands),
// @upstash/redis and restAdapter through an HTTP proxy (their retries);
// ioredis' Cluster client through one such TCP proxy per master.
import { Redis as UpstashRedis } from "@upstash/redis";
import { Cluster } from "ioredis";
import { StandaloneConnector } from "ioredis/built/connectors/index.js";
import { inject } from "vitest";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { restAdapter } from "../../src/redis/rest.js";
import { upstashAdapter } from "../../src/redis/upstash.js";
import { startDropProxy } from "../../bench/chaos/drop-proxy.js";
import { startHttpDropProxy } from "../../bench/chaos/http-drop-proxy.js";
import type { RedisAdapter } from "../../src/redis/types.js";
import { speaksTcp } from "./adapters.js";
import { clusterMasters, ownerOfPrefix } from "./cluster-slot.js";
import { openAdapter } from "./open-adapter.js";

export interface DroppingAdapter {
  adapter: RedisAdapter;
  /** Drops the reply to the next script call; resolves once it did. */
  dropNext(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * ioredis' Cluster client through a drop proxy in front of each master: its connections to a master dial
 * that master's proxy, under the address the cluster announces. Not natMap: a MOVED then names an address
 * no connection of ioredis' has, and it resends to random masters until one holds the slot, failing
 * after 16 ("Too many Cluster redirections", redis/ioredis#1582); a dropped reply's resend goes to a
 * random node first, which answers MOVED. Only the proxy of the master of `prefix`'s slot is armed: an
 * armed proxy in front of another would drop that MOVED, a second lost connection the test never asked for.
 */
async function openDroppingCluster(prefix: string): Promise<DroppingAdapter> {
  const clusterUrl = inject("clusterUrl");
  const masters = await clusterMasters(clusterUrl);
  const owner = await ownerOfPrefix(clusterUrl, prefix);
  const proxies = await Promise.all(masters.map((m) => startDropProxy(m.port, m.host)));
  const armed = proxies[masters.findIndex((m) => m.host === owner.host && m.port === owner.port)]!;
  const proxyPort = new Map(masters.map((m, i) => [`${m.host}:${m.port}`, Number(new URL(proxies[i]!.url).port)]));
  class ThroughProxy extends StandaloneConnector {
    // ioredis hands a connector the connection's options untyped.
    constructor(given: unknown) {
      const options = given as ConstructorParameters<typeof StandaloneConnector>[0];
      const port = proxyPort.get(`${options.host}:${options.port}`);
      super(port === undefined ? options : { ...options, host: "127.0.0.1", port });
    }
  }
  const client = new Cluster([masters[0]!], { redisOptions: { maxRetriesPerRequest: 1, Connector: ThroughProxy } });
  client.on("error", () => {});
  return {
    adapter: ioredisAdapter(client),
    dropNext: () => armed.dropNextReply(10_000),
    close: async () => {
      client.disconnect();
      await Promise.all(proxies.map((p) => p.close()));
    },
  };
}

/** Opens adapter `name` through a dropping proxy; `prefix`: the test's, whose slot's master drops (cluster). */
export async function openDropping(name: string, prefix: string): Promise<DroppingAdapter> {
  if (name === "cluster") return openDroppingCluster(prefix);
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
