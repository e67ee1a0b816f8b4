// tickqFastify registered in a real Fastify app: its body handling stays inside its prefix, and
// app.close() waits for a kicked tick.
import Fastify from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { ioredisAdapter } from "../../../src/redis/ioredis.js";
import { tickqFastify } from "../../../src/platforms/fastify/index.js";
import type { JobRegistry } from "../../../src/index.js";
import { deleteUnder, directRedis, uniquePrefix } from "../../helpers/redis.js";

const SECRET = "fastify-plugin-secret-0123";
const redis = directRedis();
const prefixes: string[] = [];

afterAll(async () => {
  for (const prefix of prefixes) await deleteUnder(redis, prefix);
  redis.disconnect();
});

function pluginOf<J extends JobRegistry>(jobs: J) {
  const prefix = uniquePrefix("fastify-plugin");
  prefixes.push(prefix);
  const plugin = tickqFastify({
    redis: ioredisAdapter(redis),
    jobs,
    prefix,
    tickEveryMs: 0,
    env: { TICKQ_SECRET: SECRET },
  });
  return { plugin, prefix };
}

describe("tickqFastify", () => {
  it("leaves the app's own JSON routes parsed by Fastify while its routes read their bodies raw", async () => {
    const { plugin, prefix } = pluginOf({ noop: () => {} });
    const app = Fastify();
    await app.register(plugin, { prefix: "/tickq" });
    app.post("/echo", async (request) => request.body);
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const echo = await fetch(`${url}/echo`, {
        method: "POST",
        body: JSON.stringify({ a: 1 }),
        headers: { "content-type": "application/json" },
      });
      expect(await echo.json()).toEqual({ a: 1 });
      const enqueued = await fetch(`${url}/tickq/jobs`, {
        method: "POST",
        body: JSON.stringify({ name: "noop", args: [1] }),
        headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
      });
      expect(enqueued.status).toBe(201);
      expect(await redis.llen(`${prefix}queue:default`)).toBe(1);
    } finally {
      await app.close();
    }
  });

  it("app.close() waits for a kicked tick's job to finish", async () => {
    const done: string[] = [];
    const { plugin } = pluginOf({
      slow: async ([id]: [string]) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        done.push(id);
      },
    });
    const app = Fastify();
    await app.register(plugin, { prefix: "/tickq" });
    await app.ready();
    await plugin.tickq.enqueue("slow", ["a"], { kick: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await app.close();
    expect(done).toEqual(["a"]);
  });
});
