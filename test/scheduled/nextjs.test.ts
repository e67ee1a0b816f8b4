// examples/nextjs built and served by the real Next.js, as its README says: `npm install`, `next build`,
// `next start`. A signup through the app's own route runs its job (kicked in after()); the dashboard's
// login is served under /api/tickq/dashboard; tickq's routes answer there only with the secret; a job
// enqueued without a kick runs on the cron's GET /api/tickq/tick with CRON_SECRET. The
// install and build take a minute or two, so it runs apart from `npm test` (`npm run test:scheduled`,
// which CI calls).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../src/platforms/node/find-redis.js";
import { repoRoot } from "../../scripts/tickq-source.mjs";
import { processedUnder } from "../helpers/examples.js";
import { deleteUnder, directRedis, redisUrl, sleep, uniquePrefix } from "../helpers/redis.js";

const SECRET = "nextjs-example-secret-0123";
const CRON_SECRET = "nextjs-example-cron-0123456";
const example = join(repoRoot, "examples", "nextjs");
const quiet = { NEXT_TELEMETRY_DISABLED: "1", NO_COLOR: "1" };
// Asynchronous: a worker blocked for a minute misses vitest's own calls.
const run = promisify(execFile);

// A machine that cannot install Next.js from the npm registry opts out by name (TICKQ_SKIP_NEXT=1, as
// .ci/require-tools.sh does for Sidekiq and Chromium); otherwise a failed install fails the run.
const skipped = process.env.TICKQ_SKIP_NEXT === "1";

describe.skipIf(skipped)("examples/nextjs under next build and next start", () => {
  const redis = directRedis();
  const prefix = uniquePrefix("example-nextjs");
  let server: ChildProcess | undefined;
  let printed = "";
  let url = "";

  beforeAll(async () => {
    // The example links the checkout (`file:../..`): its dist/ must hold the current sources.
    await run("npm", ["run", "-s", "build"], { cwd: repoRoot });
    await run("npm", ["install", "--no-audit", "--no-fund"], { cwd: example });
    await run("npx", ["next", "build"], { cwd: example, env: { ...process.env, ...quiet } });
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = spawn("npx", ["next", "start", "-p", String(port), "-H", "127.0.0.1"], {
      cwd: example,
      env: { ...process.env, ...quiet, REDIS_URL: redisUrl(), TICKQ_PREFIX: prefix, TICKQ_SECRET: SECRET, CRON_SECRET },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group: npx, next and next-server stop together
    });
    server.stdout!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    server.stderr!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    for (let i = 0; i < 300 && !/Ready in/.test(printed); i++) await sleep(100);
    expect(printed).toMatch(/Ready in/);
  }, 600_000);
  afterAll(async () => {
    if (server?.pid) {
      const exited = new Promise((resolve) => server!.once("exit", resolve));
      process.kill(-server.pid, "SIGTERM");
      await exited;
    }
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  it("runs the welcome email of a POST /api/signup, kicked in after()", async () => {
    const res = await fetch(`${url}/api/signup`, {
      method: "POST",
      body: JSON.stringify({ email: "ada@example.com" }),
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(201);
    // No tick runs but the kicked one: nothing else in the example ticks.
    expect(await processedUnder(redis, prefix, 1)).toBe(1);
    const sent = "welcome email sent to ada@example.com";
    for (let i = 0; i < 50 && !printed.includes(sent); i++) await sleep(20);
    expect(printed).toContain(sent);
  });

  it("serves the dashboard's login under /api/tickq/dashboard, and tickq's routes only with the secret", async () => {
    const away = await fetch(`${url}/api/tickq/dashboard`, { redirect: "manual" });
    expect(away.status).toBe(303);
    expect(away.headers.get("location")).toBe("/api/tickq/dashboard/login");
    const form = await fetch(`${url}/api/tickq/dashboard/login`);
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('action="/api/tickq/dashboard/login"');
    expect((await fetch(`${url}/api/tickq/stats`)).status).toBe(401);
    const stats = await fetch(`${url}/api/tickq/stats`, { headers: { Authorization: `Bearer ${SECRET}` } });
    expect(stats.status).toBe(200);
    expect(await stats.json()).toMatchObject({ processed: 1 });
  });

  it("runs a job enqueued without a kick on the cron's GET /api/tickq/tick with CRON_SECRET", async () => {
    const enqueued = await fetch(`${url}/api/tickq/jobs`, {
      method: "POST",
      body: JSON.stringify({ name: "sendWelcomeEmail", args: ["bob@example.com"] }),
      headers: { "content-type": "application/json", Authorization: `Bearer ${SECRET}` },
    });
    expect(enqueued.status).toBe(201);
    // As Vercel Cron calls it: a GET with CRON_SECRET, which may only tick.
    const tick = await fetch(`${url}/api/tickq/tick`, { headers: { Authorization: `Bearer ${CRON_SECRET}` } });
    expect(tick.status).toBe(200);
    expect(await tick.json()).toMatchObject({ succeeded: 1 });
    // the job printed its line before the tick answered; the pipe from next start may deliver it later
    const sent = "welcome email sent to bob@example.com";
    for (let i = 0; i < 50 && !printed.includes(sent); i++) await sleep(20);
    expect(printed).toContain(sent);
    const stats = await fetch(`${url}/api/tickq/stats`, { headers: { Authorization: `Bearer ${CRON_SECRET}` } });
    expect(stats.status).toBe(403);
  });
});
