// A private redis-server (CLIENT PAUSE stops every client, so never the shared
// one) with a plain client of the test's own, for the given-up step tests: a
// job's handler pauses Redis, and the step that acks it waits at Redis past
// the tick's patience. Registers its own beforeAll and afterAll.
import { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { startPrivateRedis, type PrivateRedis } from "./private-redis.js";

export interface PausedRedis {
  url: string;
  /** The test's own client: it reads and writes keys, and pauses Redis. */
  direct: Redis;
  /** Every client waits, this one too once the call returns, for `ms`. */
  pause(ms: number): Promise<void>;
}

/** The private Redis of a describe block: read its fields inside tests, once beforeAll started it. */
export function usePausedRedis(): PausedRedis {
  let server: PrivateRedis | undefined;
  let direct: Redis | undefined;
  const started = () => {
    if (!direct || !server) throw new Error("usePausedRedis: read it inside a test");
    return { server, direct };
  };
  beforeAll(async () => {
    server = await startPrivateRedis();
    direct = new Redis(server.url);
  });
  afterAll(async () => {
    direct?.disconnect();
    await server?.stop();
  });
  return {
    get url() {
      return started().server.url;
    },
    get direct() {
      return started().direct;
    },
    pause: async (ms) => void (await started().direct.call("CLIENT", "PAUSE", String(ms), "ALL")),
  };
}
