// Opens an adapter by name, from plain URLs: free of vitest, so a child
// process (test/fixtures/tick-child.ts) opens the very same adapter as the
// test that spawned it.
import { Redis } from "ioredis";
import { ioredisAdapter } from "../../adapters/ioredis.js";
import type { RedisAdapter } from "../../src/types.js";

export interface Endpoints {
  redisUrl: string;
}

export interface OpenedAdapter {
  adapter: RedisAdapter;
  close(): Promise<void>;
}

export function openAdapter(name: string, endpoints: Endpoints): OpenedAdapter {
  if (name === "ioredis") {
    const client = new Redis(endpoints.redisUrl, { maxRetriesPerRequest: 1 });
    client.on("error", () => {});
    return { adapter: ioredisAdapter(client), close: async () => void client.disconnect() };
  }
  throw new Error(`unknown adapter ${name}`);
}
