import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { answers, findRedis, startPrivate } from "../../../src/platforms/node/find-redis.js";
import { redisUrl } from "../../helpers/redis.js";

describe("finding Redis (npm start and the tests)", () => {
  it("uses REDIS_URL when it answers", async () => {
    const found = await findRedis({ REDIS_URL: redisUrl() });
    expect(found).toMatchObject({ url: redisUrl(), source: "REDIS_URL" });
  });

  it("says so when REDIS_URL does not answer", async () => {
    await expect(findRedis({ REDIS_URL: "redis://127.0.0.1:1" })).rejects.toThrow(
      /REDIS_URL=redis:\/\/127.0.0.1:1 does not answer/,
    );
  });

  it("starts a private redis-server when none answers (redis-server is on the PATH here)", async () => {
    expect(execFileSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" })).toMatch(/redis-server/);
    const found = await startPrivate();
    try {
      expect(found.source).toBe("private");
      expect(found.url).not.toBe(redisUrl());
      expect(await answers(found.url)).toBe(true);
    } finally {
      await found.stop();
    }
    for (let i = 0; i < 20 && (await answers(found.url, 200)); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await answers(found.url, 200)).toBe(false);
  });
});
