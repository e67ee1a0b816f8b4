// GET /health with Redis down logs the outage once, not a stack trace for
// every check: the first failure with its error (credentials masked), then
// nothing more within the minute, however many checks come; the answers stay
// a clear 503 each time.
import { Redis } from "ioredis";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { createTickq } from "../../../src/index.js";
import { ioredisAdapter } from "../../../src/redis/ioredis.js";

const SECRET = "health-outage-secret-0123456789";

describe("GET /health with Redis down, checked again and again", () => {
  afterEach(() => vi.restoreAllMocks());

  it("logs the outage once, with no credential, and answers 503 every time", async () => {
    const client = new Redis("redis://default:RedisPassword0123@127.0.0.1:1", {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on("error", () => {});
    const lines: string[] = [];
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
    try {
      const tickq = createTickq({ redis: ioredisAdapter(client), jobs: {}, redisTimeoutMs: 300 });
      const app = createApp({ tickq, secrets: [SECRET] });
      for (let i = 0; i < 5; i++) {
        // A caller with a secret gets a fresh check each time (no cache).
        const detailed = await app.request("/health", { headers: { authorization: `Bearer ${SECRET}` } });
        expect(detailed.status).toBe(503);
        expect(await detailed.json()).toMatchObject({ ok: false, code: expect.stringMatching(/^REDIS/) });
      }
      const health = lines.filter((l) => l.includes("health check"));
      expect(health).toHaveLength(1);
      expect(health[0]).toContain("once per outage");
      expect(lines.join("\n")).not.toContain("RedisPassword0123");
    } finally {
      client.disconnect();
    }
  });
});
