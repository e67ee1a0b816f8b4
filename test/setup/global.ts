// Finds Redis the way `npm start` does, puts the Upstash-compatible REST
// server in front of it, and hands both to every test file. When the run
// covers the `cluster` adapter (TICKQ_ADAPTERS=cluster, `npm run
// test:cluster`), it also starts a private Redis Cluster of three masters,
// stopped by PID at teardown; other runs start none (it costs seconds).
import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { startPrivateRedisCluster } from "../../bench/chaos/private-cluster.js";
import { findRedis } from "../../src/platforms/node/find-redis.js";
import { startUpstashLocal } from "../../tools/upstash-local/server.js";
import { selectedAdapterNames } from "../helpers/adapter-names.js";

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
  const cluster = selectedAdapterNames().includes("cluster")
    ? // A long node timeout: no replica could take over anyway, and a node slowed by a loaded machine must not be
      // marked failed (its slots would answer CLUSTERDOWN).
      await startPrivateRedisCluster({ masters: 3, nodeTimeoutMs: 15_000 })
    : undefined;
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
