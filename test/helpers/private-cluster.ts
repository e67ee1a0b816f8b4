// A Redis Cluster of the test's own: three masters, no replicas, on free
// ports, each in a temporary folder, stopped by PID (the cluster the fault
// suite starts: bench/chaos/private-cluster.ts).
import { Cluster } from "ioredis";
import { createCluster, type RedisClusterType } from "redis";
import { afterAll, beforeAll } from "vitest";
import { startPrivateRedisCluster } from "../../bench/chaos/private-cluster.js";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { nodeRedisAdapter } from "../../src/redis/node-redis.js";
import type { RedisAdapter } from "../../src/redis/types.js";

export interface PrivateCluster {
  nodes: { host: string; port: number }[];
  stop(): Promise<void>;
}

export async function startPrivateCluster(): Promise<PrivateCluster> {
  const cluster = await startPrivateRedisCluster({ masters: 3 });
  return { nodes: cluster.seeds, stop: () => cluster.stop() };
}

/** A private cluster for one test file, and the two cluster clients tickq runs over on it. */
export interface ClusterClients {
  /** Set once the file's beforeAll ran. */
  cluster: PrivateCluster;
  /** ioredis' Cluster client; it also reads every master for a test's assertions. */
  client: Cluster;
  nodeRedis: RedisClusterType;
  /** tickq's adapter over each client, by name, for describe.each. */
  adapters: { name: string; adapter: () => RedisAdapter }[];
}

/** Starts a three-master cluster before the file's tests and both clients on it; stops them after. */
export function useClusterClients(): ClusterClients {
  const world = {} as ClusterClients;
  world.adapters = [
    { name: "ioredis", adapter: () => ioredisAdapter(world.client) },
    { name: "node-redis", adapter: () => nodeRedisAdapter(world.nodeRedis) },
  ];
  beforeAll(async () => {
    world.cluster = await startPrivateCluster();
    world.client = new Cluster(world.cluster.nodes, { redisOptions: { maxRetriesPerRequest: 2 } });
    world.client.on("error", () => {});
    world.nodeRedis = createCluster({
      rootNodes: world.cluster.nodes.map(({ host, port }) => ({ url: `redis://${host}:${port}` })),
    });
    world.nodeRedis.on("error", () => {});
    await world.nodeRedis.connect();
  }, 60_000);
  afterAll(async () => {
    world.client?.disconnect();
    if (world.nodeRedis?.isOpen) world.nodeRedis.destroy();
    await world.cluster?.stop();
  });
  return world;
}
