// Finds Redis the way `npm start` does, puts the Upstash-compatible REST
// server in front of it, and hands both to every test file. When the run
// covers the `cluster` adapter (TICKQ_ADAPTERS=cluster, `npm run
// test:cluster`), it also starts a private Redis Cluster of three masters
// (with TICKQ_CLUSTER_REPLICAS replicas each, `npm run test:cluster:replicas`),
// stopped by PID at teardown, its folders removed; other runs start none (it
// costs seconds).
import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { type PrivateRedisCluster, startPrivateRedisCluster } from "../../bench/chaos/private-cluster.js";
import { findRedis } from "../../src/platforms/node/find-redis.js";
import { startUpstashLocal } from "../../tools/upstash-local/server.js";
import { clusterReplicasAsked, selectedAdapterNames } from "../helpers/adapter-names.js";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
    restUrl: string;
    restToken: string;
    /** A node of the private cluster (a client finds the others from it); "" when the run does not cover `cluster`. */
    clusterUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const redis = await findRedis();
  // anyScript: suites run their own Lua (a script's errors, replies, replays) over every adapter.
  const rest = await startUpstashLocal({
    redisUrl: redis.url,
    token: `test-token-${randomBytes(12).toString("hex")}`,
    anyScript: true,
  });
  let cluster: PrivateRedisCluster | undefined;
  try {
    cluster = selectedAdapterNames().includes("cluster")
      ? // A long node timeout: a node slowed by a loaded machine must be neither marked failed (with no replica its
        // slots would answer CLUSTERDOWN) nor replaced by its replica in the middle of a test. The start resolves
        // once every replica is linked and in sync, and stops every node it started if that never happens.
        await startPrivateRedisCluster({ masters: 3, replicas: clusterReplicasAsked(), nodeTimeoutMs: 15_000 })
      : undefined;
  } catch (error) {
    await rest.close();
    await redis.stop();
    throw error;
  }
  project.provide("redisUrl", redis.url);
  project.provide("restUrl", rest.url);
  project.provide("restToken", rest.token);
  project.provide("clusterUrl", cluster ? `redis://${cluster.seeds[0]!.host}:${cluster.seeds[0]!.port}` : "");
  return async () => {
    await cluster?.stop();
    await rest.close();
    await redis.stop();
  };
}
