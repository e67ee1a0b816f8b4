// Finds Redis the way `npm start` does, puts the Upstash-compatible REST
// server in front of it, and hands both to every test file.
import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { findRedis } from "../../src/platforms/node/find-redis.js";
import { startUpstashLocal } from "../../tools/upstash-local/server.js";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
    restUrl: string;
    restToken: string;
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
  project.provide("redisUrl", redis.url);
  project.provide("restUrl", rest.url);
  project.provide("restToken", rest.token);
  return async () => {
    await rest.close();
    await redis.stop();
  };
}
