import { describe, expect, it } from "vitest";
import { startServer } from "../../../src/platforms/node/server.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { redisUrl, sleep } from "../../helpers/redis.js";

describe("the Node server (npm start)", () => {
  const h = useHarness(adapterCases[0]!, "server");

  it("refuses to start without a secret unless TICKQ_INSECURE", async () => {
    await expect(startServer({ redisUrl: redisUrl(), jobs: {}, port: 0 })).rejects.toThrow(/TICKQ_SECRET/);
  });

  it("serves the app over HTTP and ticks by itself every interval", async () => {
    const ran: number[] = [];
    const jobs = { count: (args: [number]) => void ran.push(args[0]) };
    const server = await startServer({
      redisUrl: redisUrl(),
      jobs,
      prefix: h.prefix,
      port: 0,
      secret: "abc-secret-for-tests",
      tickEveryMs: 50,
      tick: { budgetMs: 1_000 },
    });
    try {
      const tq = h.make(jobs);
      const unauthorized = await fetch(`${server.url}/stats`);
      expect(unauthorized.status).toBe(401);
      const health = await fetch(`${server.url}/health`);
      expect(await health.json()).toMatchObject({ ok: true });
      const marker = Date.now();
      await tq.enqueue("count", [marker]);
      for (let i = 0; i < 40 && !ran.includes(marker); i++) await sleep(50);
      expect(ran).toContain(marker);
      const tick = await fetch(`${server.url}/tick`, {
        method: "POST",
        headers: { Authorization: "Bearer abc-secret-for-tests" },
      });
      expect(tick.status).toBe(200);
      expect(await tick.json()).toHaveProperty("tickId");
    } finally {
      await server.close();
    }
  });
});
