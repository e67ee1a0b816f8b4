// A private redis-server with maxmemory and noeviction (its own port and
// folder, no persistence), the local REST server in front of it, and a way
// to pin it over its limit: for tests of what tickq does when Redis is full.
import { Redis } from "ioredis";
import { startUpstashLocal, type UpstashLocalServer } from "../../tools/upstash-local/server.js";
import { openAdapter, type OpenedAdapter } from "./open-adapter.js";
import { startPrivateRedis, type PrivateRedis } from "./private-redis.js";
import { sleep } from "./redis.js";

const TOKEN = "full-redis-token";

export interface FullRedis {
  admin: Redis;
  open(adapter: string): OpenedAdapter;
  /** Sets maxmemory below what Redis uses now, so every write that may grow memory is refused (OOM). */
  pinFull(): Promise<void>;
  /** Back to a limit far above use. */
  unpin(): Promise<void>;
  usedMemory(): Promise<number>;
  stop(): Promise<void>;
}

export async function startFullRedis(): Promise<FullRedis> {
  const server: PrivateRedis = await startPrivateRedis();
  const admin = new Redis(server.url);
  await admin.config("SET", "maxmemory-policy", "noeviction");
  await admin.config("SET", "maxmemory", "256mb");
  const rest: UpstashLocalServer = await startUpstashLocal({ redisUrl: server.url, token: TOKEN });
  const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await admin.info("memory"))![1]);
  return {
    admin,
    open: (adapter) => openAdapter(adapter, { redisUrl: server.url, restUrl: rest.url, restToken: TOKEN }),
    async pinFull() {
      // A request's own buffers count too: pin well below what is used, then check a write is refused.
      await admin.config("SET", "maxmemory", String((await usedMemory()) - 200_000));
      for (let i = 0; i < 20; i++) {
        if (
          await admin.set("probe", "x").then(
            () => false,
            (e: Error) => /OOM/.test(e.message),
          )
        )
          return;
        await sleep(50);
      }
      throw new Error("Redis did not refuse a write after its maxmemory was set below its use");
    },
    async unpin() {
      await admin.config("SET", "maxmemory", "256mb");
    },
    usedMemory,
    async stop() {
      admin.disconnect();
      await rest.close();
      await server.stop();
    },
  };
}
