// How the cluster phase's workers and driver reach the private cluster:
// ioredis' Cluster client or node-redis' createCluster, and the tickq options
// that put tickq's keys on it — one hash tag (`{chaos}:`, every key in one
// slot, so one master holds them all) or `partitions: N` under a plain prefix
// (each partition its own tag, spread over the masters).
import { Cluster } from "ioredis";
import { createCluster } from "redis";
import { slotOf } from "../../src/partitions/layout.js";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { nodeRedisAdapter } from "../../src/redis/node-redis.js";
import type { RedisAdapter } from "../../src/redis/types.js";

export type ClusterClientName = "ioredis" | "node-redis";

export interface ClusterEndpoint {
  client: ClusterClientName;
  seeds: { host: string; port: number }[];
  /** 1: one hash tag (today's layout); N > 1: `partitions: N`. */
  partitions: number;
}

export function clusterEnv(e: ClusterEndpoint): Record<string, string> {
  return {
    CLUSTER_CLIENT: e.client,
    CLUSTER_SEEDS: e.seeds.map((s) => `${s.host}:${s.port}`).join(","),
    CLUSTER_PARTITIONS: String(e.partitions),
  };
}

export function clusterFromEnv(env: NodeJS.ProcessEnv): ClusterEndpoint {
  return {
    client: env.CLUSTER_CLIENT === "node-redis" ? "node-redis" : "ioredis",
    seeds: (env.CLUSTER_SEEDS ?? "").split(",").map((s) => {
      const [host, port] = s.split(":");
      return { host: host!, port: Number(port) };
    }),
    partitions: Number(env.CLUSTER_PARTITIONS ?? "1"),
  };
}

const TAG_PREFIX = "{chaos}:";
const PLAIN_PREFIX = "chaos:";

/**
 * The key-layout options of createTickq: one hash tag, or `partitions` under a plain prefix. `partitions` is
 * passed untyped so this builds on a tickq without the option (which then refuses it at start, naming it).
 */
export function layoutOptions(partitions: number): { prefix: string } {
  return (partitions > 1 ? { prefix: PLAIN_PREFIX, partitions } : { prefix: TAG_PREFIX }) as { prefix: string };
}

/** The slot tickq's keys sit in with one hash tag: the master that holds it does all the work. */
export const TAG_SLOT = slotOf(TAG_PREFIX);

/** A cluster client and its adapter; ioredis' retries and failover delays kept short for a run that kills masters. */
export async function openCluster(e: ClusterEndpoint): Promise<{ adapter: RedisAdapter; close(): void }> {
  if (e.client === "ioredis") {
    const cluster = new Cluster(e.seeds, {
      redisOptions: { maxRetriesPerRequest: 2, connectTimeout: 1_000 },
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 200,
      slotsRefreshTimeout: 1_000,
      clusterRetryStrategy: () => 200,
    });
    cluster.on("error", () => {});
    return { adapter: ioredisAdapter(cluster), close: () => cluster.disconnect() };
  }
  const cluster = createCluster({ rootNodes: e.seeds.map(({ host, port }) => ({ url: `redis://${host}:${port}` })) });
  cluster.on("error", () => {});
  await cluster.connect();
  return {
    adapter: nodeRedisAdapter(cluster),
    close: () => {
      if (cluster.isOpen) cluster.destroy();
    },
  };
}
