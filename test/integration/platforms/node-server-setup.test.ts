// The Node server as a new user meets it: Redis down is a fast, clear 503;
// a password in REDIS_URL is never printed; a port in use is one line.
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it, vi } from "vitest";
import { freePort } from "../../../src/platforms/node/find-redis.js";
import { listen } from "../../../src/platforms/node/listen.js";
import { redactUrl } from "../../../src/platforms/node/redis-client.js";
import { startServer } from "../../../src/platforms/node/server.js";
import { sleep } from "../../helpers/redis.js";

const PASSWORD = "hunter2-s3cret";

async function passwordRedis() {
  const port = await freePort();
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--requirepass", PASSWORD, "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  await sleep(300);
  return { url: `redis://:${PASSWORD}@127.0.0.1:${port}`, stop: () => child.kill("SIGKILL") };
}

describe("the Node server's setup", () => {
  afterEach(() => vi.restoreAllMocks());

  it("answers 503 with a clear error within 2 s once Redis is down, and never prints the password", async () => {
    const printed: string[] = [];
    for (const method of ["log", "error", "warn"] as const)
      vi.spyOn(console, method).mockImplementation((...a: unknown[]) => void printed.push(a.join(" ")));
    const redis = await passwordRedis();
    const server = await startServer({
      redisUrl: redis.url,
      jobs: { j: () => {} },
      port: 0,
      secret: "abc-secret-for-tests",
      tickEveryMs: 0,
    });
    try {
      const auth = { Authorization: "Bearer abc-secret-for-tests", "content-type": "application/json" };
      expect(
        (
          await fetch(`${server.url}/jobs`, {
            method: "POST",
            headers: auth,
            body: JSON.stringify({ name: "j", args: [] }),
          })
        ).status,
      ).toBe(201);
      redis.stop();
      await sleep(300);
      for (const [path, init] of [
        ["/jobs", { method: "POST", body: JSON.stringify({ name: "j", args: [] }) }],
        ["/tick", { method: "POST" }],
      ] as const) {
        const t = Date.now();
        const res = await fetch(`${server.url}${path}`, { ...init, headers: auth });
        expect(Date.now() - t, path).toBeLessThan(2_500);
        expect(res.status, path).toBe(503);
        const { error } = (await res.json()) as { error: string };
        expect(error).toMatch(
          /Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/? is unreachable \(.*ECONNREFUSED.*\): is it running\? Check REDIS_URL/,
        );
        expect(error).not.toMatch(/maxRetriesPerRequest|max retries/i);
      }
    } finally {
      await server.close();
    }
    expect(printed.join("\n")).toMatch(/Redis at redis:\/\/:\*\*\*@/);
    expect(printed.join("\n")).not.toContain(PASSWORD);
  });

  it("says once that Redis is down (no lease or stack lines), /health says why, and says once that it is back", async () => {
    const printed: string[] = [];
    for (const method of ["log", "error", "warn"] as const)
      vi.spyOn(console, method).mockImplementation((...a: unknown[]) => void printed.push(...a.join(" ").split("\n")));
    const port = await freePort();
    const server = await startServer({
      redisUrl: `redis://127.0.0.1:${port}`,
      jobs: { j: () => {} },
      port: 0,
      secret: "abc-secret-for-tests",
      tickEveryMs: 100, // many ticks, each of which would log its lease
    });
    const auth = { Authorization: "Bearer abc-secret-for-tests", "content-type": "application/json" };
    let redis: ReturnType<typeof spawn> | undefined;
    try {
      for (let i = 0; i < 8; i++) {
        const health = await fetch(`${server.url}/health`, { headers: auth });
        expect(health.status).toBe(503);
        expect(await health.json()).toMatchObject({
          ok: false,
          code: "REDIS",
          error: expect.stringMatching(/Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable .*Check REDIS_URL/),
        });
        const post = await fetch(`${server.url}/jobs`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ name: "j", args: [] }),
        });
        expect(post.status).toBe(503);
        await sleep(400);
      }
      const down = printed.filter((l) => l.includes("is unreachable"));
      // The first line, and at most the reminder at 5 s: not one per reconnect, tick, lease call or request.
      expect(down.length, printed.join("\n")).toBeGreaterThanOrEqual(1);
      expect(down.length, printed.join("\n")).toBeLessThanOrEqual(2);
      expect(
        printed.filter((l) => /could not extend|tick failed|request failed|health check failed|^\s+at /.test(l)),
      ).toEqual([]);

      redis = spawn(
        "redis-server",
        ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        {
          stdio: "ignore",
        },
      );
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        await sleep(100);
        status = (await fetch(`${server.url}/health`, { headers: auth })).status;
      }
      expect(status).toBe(200);
      expect(printed.filter((l) => l.includes("is back"))).toHaveLength(1);
    } finally {
      await server.close();
      redis?.kill("SIGKILL");
    }
  });

  it("redacts the password (or a lone user) of any Redis URL", () => {
    expect(redactUrl("redis://user:pw@host:6379/0")).toBe("redis://user:***@host:6379/0");
    expect(redactUrl("rediss://default:pw@h.upstash.io:6379")).toBe("rediss://default:***@h.upstash.io:6379");
    expect(redactUrl("redis://token@host")).toBe("redis://***@host");
    expect(redactUrl("redis://127.0.0.1:6379")).toBe("redis://127.0.0.1:6379");
  });

  it("says in one line that a port is in use, and what to do", async () => {
    const first = await listen(() => new Response("x"), 0);
    const port = Number(new URL(first.url).port);
    try {
      const error = await listen(() => new Response("y"), port).catch((e: unknown) => e as Error);
      expect((error as Error).message).toBe(
        `port ${port} is in use: stop what listens there, or choose another with PORT (PORT=${port + 1} npm start)`,
      );
    } finally {
      await first.close();
    }
  });
});
