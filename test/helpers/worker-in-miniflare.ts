// The bundled example Worker in one Miniflare per test file, over the local
// Upstash-compatible server, under a prefix of its own that is cleaned up
// after the file.
import { Miniflare } from "miniflare";
import { afterAll, beforeAll } from "vitest";
import { testEndpoints } from "./adapters.js";
import { deleteUnder, directRedis, uniquePrefix } from "./redis.js";
import { workerBundle } from "./worker-bundle.js";

export interface WorkerInMiniflare {
  /** Set once beforeAll has run. */
  mf: Miniflare;
  prefix: string;
  redis: ReturnType<typeof directRedis>;
}

/**
 * Registers beforeAll/afterAll that start and stop the Worker with these vars (Upstash's and TICKQ_PREFIX are added);
 * `entry`: another Worker than the example, bundled the same way.
 */
export function useWorkerInMiniflare(label: string, vars: Record<string, string>, entry?: string): WorkerInMiniflare {
  const world = { prefix: uniquePrefix(label), redis: directRedis() } as WorkerInMiniflare;
  beforeAll(async () => {
    const { restUrl, restToken } = testEndpoints();
    world.mf = new Miniflare({
      modules: true,
      script: await workerBundle(entry),
      compatibilityDate: "2025-09-01",
      bindings: {
        UPSTASH_REDIS_REST_URL: restUrl,
        UPSTASH_REDIS_REST_TOKEN: restToken,
        TICKQ_PREFIX: world.prefix,
        ...vars,
      },
    });
    await world.mf.ready;
  }, 60_000);
  afterAll(async () => {
    await world.mf?.dispose();
    await deleteUnder(world.redis, world.prefix);
    world.redis.disconnect();
  });
  return world;
}
