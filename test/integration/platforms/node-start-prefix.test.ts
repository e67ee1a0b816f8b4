// `npm start` keeps its keys under TICKQ_PREFIX, as the CLI reads them: a user
// who sets TICKQ_PREFIX for both must see in `npx tickq` what the server runs.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../../src/platforms/node/find-redis.js";

const SECRET = "start-prefix-secret-0123456789";
const REDIS_URL = process.env.TICKQ_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

describe("npm start with TICKQ_PREFIX", () => {
  const prefix = `test-start-prefix-${randomBytes(4).toString("hex")}:`;
  const redis = new Redis(REDIS_URL);
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it("writes the jobs it is sent under that prefix", async () => {
    const port = await freePort();
    const child = spawn("node_modules/.bin/tsx", ["src/cli/dev/start.ts"], {
      env: { PATH: process.env.PATH ?? "", REDIS_URL, TICKQ_SECRET: SECRET, TICKQ_PREFIX: prefix, PORT: String(port) },
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk));
    try {
      for (let i = 0; i < 300 && !/listening on/.test(out) && child.exitCode === null; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(out).toMatch(/listening on/);
      const res = await fetch(`http://127.0.0.1:${port}/jobs`, {
        method: "POST",
        headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
        // delayed, so no tick of the server runs it away before we look
        body: JSON.stringify({ name: "sendWelcomeEmail", args: ["ada@example.com"], delayMs: 600_000 }),
      });
      expect(res.status).toBe(201);
      const { jid } = (await res.json()) as { jid: string };
      const scheduled = await redis.zrange(`${prefix}schedule`, "0", "-1");
      expect(scheduled.some((job) => job.includes(jid))).toBe(true);
    } finally {
      child.kill("SIGTERM");
    }
  }, 30_000);
});
