// The adapters every core suite runs over (describe.each(adapterCases)):
// ioredis and node-redis over TCP; @upstash/redis, and restAdapter (fetch
// alone), over HTTP through the local Upstash-compatible server in front of
// the same Redis; cluster, ioredis' Cluster client over the private 3-master
// cluster the global setup starts when the run covers it (a replica per
// master with TICKQ_CLUSTER_REPLICAS=1; the client reads masters only, its
// default scaleReads).
// TICKQ_ADAPTERS=ioredis (a comma list) narrows a run to those adapters.
import { Cluster } from "ioredis";
import { describe, inject, it } from "vitest";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { startUpstashLocal } from "../../tools/upstash-local/server.js";
import { selectedAdapterNames, type AdapterName } from "./adapter-names.js";
import { clusterNodes } from "./cluster-slot.js";
import { openAdapter, type Endpoints, type OpenedAdapter } from "./open-adapter.js";
import { startProxy } from "./proxy.js";

export interface AdapterCase {
  name: AdapterName;
  endpoints(): Endpoints;
  open(): OpenedAdapter;
}

/** The test Redis and the REST server in front of it, from the global setup. */
export function testEndpoints(): Endpoints {
  return { redisUrl: inject("redisUrl"), restUrl: inject("restUrl"), restToken: inject("restToken") };
}

/** The endpoints an adapter case opens: for `cluster`, redisUrl is a node of the private cluster. */
function endpointsOf(name: AdapterName): Endpoints {
  const endpoints = testEndpoints();
  if (name !== "cluster") return endpoints;
  const clusterUrl = inject("clusterUrl");
  if (clusterUrl === "")
    throw new Error("the cluster adapter runs only when TICKQ_ADAPTERS names it (npm run test:cluster)");
  return { ...endpoints, redisUrl: clusterUrl };
}

/** One adapter by name, selected or not: for a test that needs that client (a Vercel or Worker entry speaks REST). */
export function adapterCase(name: AdapterName): AdapterCase {
  return { name, endpoints: () => endpointsOf(name), open: () => openAdapter(name, endpointsOf(name)) };
}

/** The adapters this run covers (TICKQ_ADAPTERS, or all), never empty. */
export const adapterCases: AdapterCase[] = selectedAdapterNames().map(adapterCase);

/**
 * describe.each over `cases`, a subset of adapterCases; when TICKQ_ADAPTERS left none of them, one skipped test
 * says so (a file with no test at all fails in vitest).
 */
export function describeOverAdapters<T extends { name: string }>(
  cases: T[],
  title: string,
  body: (adapterCase: T) => void,
  options?: { timeout: number },
): void {
  if (cases.length > 0) describe.each(cases)(title, options ?? {}, body);
  else
    describe.skip(title.replace("$name", "no adapter of this run"), () =>
      it("runs over an adapter TICKQ_ADAPTERS leaves out", () => {}),
    );
}

export interface CuttableAdapter extends OpenedAdapter {
  /** Makes Redis unreachable for this adapter from now on. */
  cut(): Promise<void>;
  /** Makes this adapter's calls hang from now on (a network that swallows packets); cut() ends it. */
  stall(): void;
}

/** Whether the adapter speaks TCP to Redis itself (ioredis, node-redis), rather than HTTP to a REST server. */
export function speaksTcp(name: string): boolean {
  return name === "ioredis" || name === "node-redis" || name === "cluster";
}

/** An adapter whose Redis (TCP) or REST endpoint (HTTP) nothing listens on. */
export function openUnreachable(name: string): OpenedAdapter {
  return speaksTcp(name)
    ? openAdapter(name, { redisUrl: "redis://127.0.0.1:1", restUrl: "", restToken: "" })
    : openAdapter(name, { redisUrl: "", restUrl: "http://127.0.0.1:1", restToken: "t" });
}

/**
 * ioredis' Cluster client through a TCP proxy in front of each node, replicas included (a slot refresh may ask
 * one): natMap sends it to the proxies for the addresses the cluster announces, so cutting them all cuts it off
 * the cluster.
 */
async function openCuttableCluster(): Promise<CuttableAdapter> {
  const nodes = await clusterNodes(inject("clusterUrl"));
  const proxies = await Promise.all(nodes.map((n) => startProxy(`redis://${n.host}:${n.port}`)));
  const portOf = (url: string) => Number(new URL(url).port);
  const natMap = Object.fromEntries(
    nodes.map((n, i) => [`${n.host}:${n.port}`, { host: "127.0.0.1", port: portOf(proxies[i]!.url) }]),
  );
  const client = new Cluster([{ host: "127.0.0.1", port: portOf(proxies[0]!.url) }], {
    natMap,
    redisOptions: { maxRetriesPerRequest: 1 },
  });
  client.on("error", () => {});
  const cut = async () => void (await Promise.all(proxies.map((p) => p.cut())));
  return {
    adapter: ioredisAdapter(client),
    close: async () => {
      client.disconnect();
      await cut();
    },
    cut,
    stall: () => {
      for (const p of proxies) p.stall();
    },
  };
}

/** An adapter that works until cut() or stall(): through a TCP proxy, and over HTTP a private REST server in front of it. */
export async function openCuttable(name: string): Promise<CuttableAdapter> {
  if (name === "cluster") return openCuttableCluster();
  const endpoints = testEndpoints();
  const proxy = await startProxy(endpoints.redisUrl);
  if (speaksTcp(name)) {
    return { ...openAdapter(name, { ...endpoints, redisUrl: proxy.url }), cut: proxy.cut, stall: proxy.stall };
  }
  // anyScript: as test/setup/global.ts, suites run their own Lua over it.
  const rest = await startUpstashLocal({ redisUrl: proxy.url, token: endpoints.restToken, anyScript: true });
  const cut = async () => {
    await proxy.cut();
    await rest.close();
  };
  return { ...openAdapter(name, { ...endpoints, restUrl: rest.url }), cut, stall: proxy.stall };
}
