// A Redis Cluster of the test's own: three masters, no replicas, on free
// ports, each in a temporary folder, stopped by PID (the cluster the fault
// suite starts: bench/chaos/private-cluster.ts).
import { startPrivateRedisCluster } from "../../bench/chaos/private-cluster.js";

export interface PrivateCluster {
  nodes: { host: string; port: number }[];
  stop(): Promise<void>;
}

export async function startPrivateCluster(): Promise<PrivateCluster> {
  const cluster = await startPrivateRedisCluster({ masters: 3 });
  return { nodes: cluster.seeds, stop: () => cluster.stop() };
}
