// Finds Redis the way `npm start` does, and hands its URL to every test file.
import type { TestProject } from "vitest/node";
import { findRedis } from "../../functions/node/find-redis.js";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const redis = await findRedis();
  project.provide("redisUrl", redis.url);
  return () => redis.stop();
}
