// The long-running commands, as child processes: the local REST server and
// the Node server with the jobs of a module.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, inject, it } from "vitest";
import { buildCli } from "../../helpers/cli.js";

const JOBS = "test/fixtures/cli-jobs.mjs";

describe("tickq redis-http", () => {
  it("serves the Upstash REST protocol over REDIS_URL until stopped", async () => {
    const cli = await buildCli({});
    const child = spawn(
      process.execPath,
      [cli.path, "redis-http", "--port", "0", "--token", "a-token-for-the-cli-test"],
      {
        env: { PATH: process.env.PATH ?? "", REDIS_URL: inject("redisUrl") },
      },
    );
    try {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk));
      for (let i = 0; i < 100 && !out.includes("TOKEN="); i++) await new Promise((r) => setTimeout(r, 50));
      expect(out).toMatch(/UPSTASH_REDIS_REST_TOKEN=a-token-for-the-cli-test/);
      const url = /UPSTASH_REDIS_REST_URL=(\S+)/.exec(out)![1]!;
      const res = await fetch(url, {
        method: "POST",
        headers: { Authorization: "Bearer a-token-for-the-cli-test" },
        body: JSON.stringify(["PING"]),
      });
      expect(await res.json()).toEqual({ result: "PONG" });
      child.kill("SIGTERM");
      const [code] = await once(child, "exit");
      expect(code).toBe(0);
    } finally {
      child.kill("SIGKILL");
      cli.dispose();
    }
  });
});

describe("tickq serve", () => {
  it("serves the app with the jobs and workflows of a module and ticks by itself", async () => {
    const cli = await buildCli({});
    const prefix = `tickq-test:serve:${Date.now()}:`;
    const env = {
      PATH: process.env.PATH ?? "",
      REDIS_URL: inject("redisUrl"),
      TICKQ_SECRET: "serve-secret-for-tests",
      TICKQ_TEST_REDIS_URL: inject("redisUrl"),
      TICKQ_TEST_PREFIX: prefix,
    };
    const child = spawn(process.execPath, [cli.path, "serve", "--jobs", JOBS, "--port", "0", "--prefix", prefix], {
      env,
    });
    try {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk));
      for (let i = 0; i < 100 && !out.includes("listening on"); i++) await new Promise((r) => setTimeout(r, 50));
      const url = /listening on (\S+)/.exec(out)![1]!;
      const auth = { Authorization: "Bearer serve-secret-for-tests", "content-type": "application/json" };
      const posted = await fetch(`${url}/jobs`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ name: "hello", args: ["served"] }),
      });
      expect(posted.status).toBe(201);
      const ran = await cli.run(["jobs", "list", "queued", "--prefix", prefix], { REDIS_URL: inject("redisUrl") });
      expect(ran.code).toBe(0);
      let health: { ok: boolean; lastTickAt: number | null } = { ok: false, lastTickAt: null };
      for (let i = 0; i < 60 && health.lastTickAt === null; i++) {
        await new Promise((r) => setTimeout(r, 100));
        health = await (await fetch(`${url}/health`, { headers: { Authorization: auth.Authorization } })).json();
      }
      expect(health.ok).toBe(true);
      expect(health.lastTickAt).toEqual(expect.any(Number));
      const started = await fetch(`${url}/workflows/greet`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ input: "ada" }),
      });
      expect(started.status).toBe(201);
      const { id } = (await started.json()) as { id: string };
      let run: { status?: string; output?: unknown } = {};
      for (let i = 0; i < 100 && run.status !== "completed"; i++) {
        await new Promise((r) => setTimeout(r, 100));
        run = await (await fetch(`${url}/workflows/${id}`, { headers: auth })).json();
      }
      expect(run).toMatchObject({ status: "completed", output: "hi ada" });
      child.kill("SIGTERM");
      const [code] = await once(child, "exit");
      expect(code).toBe(0);
    } finally {
      child.kill("SIGKILL");
      cli.dispose();
      const { directRedis, deleteUnder } = await import("../../helpers/redis.js");
      const redis = directRedis();
      await deleteUnder(redis, prefix);
      redis.disconnect();
    }
  });
});
