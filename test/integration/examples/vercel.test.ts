// examples/vercel served on this machine as its README says (`npm run local`:
// api/ routed as Vercel routes it, vercel.json's rewrites included) against
// the local Upstash-compatible server: a signup through its own function runs
// the welcome email job, and vercel.json's cron path starts a tick.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  exampleDir,
  outputHolding,
  processedUnder,
  startExample,
  type RunningExample,
} from "../../helpers/examples.js";
import { deleteUnder, directRedis, uniquePrefix } from "../../helpers/redis.js";

describe("examples/vercel", () => {
  const redis = directRedis();
  const prefix = uniquePrefix("example-vercel");
  const SECRET = "vercel-example-secret-0123";
  const CRON_SECRET = "vercel-example-cron-0123456";
  let project: RunningExample;

  beforeAll(async () => {
    project = await startExample("vercel", "local.ts", {
      UPSTASH_REDIS_REST_URL: inject("restUrl"),
      UPSTASH_REDIS_REST_TOKEN: inject("restToken"),
      TICKQ_SECRET: SECRET,
      CRON_SECRET,
      TICKQ_PREFIX: prefix,
      PORT: "0",
    });
  }, 60_000);
  afterAll(async () => {
    await project?.stop();
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  const signup = (body: string) => fetch(`${project.url}/api/signup`, { method: "POST", body });

  it("runs the welcome email of a POST /api/signup, kicked in the signup function", async () => {
    const res = await signup(JSON.stringify({ email: "grace@example.com" }));
    expect(res.status).toBe(201);
    expect(await processedUnder(redis, prefix, 1)).toBe(1);
    const sent = "welcome email sent to grace@example.com";
    expect(await outputHolding(project, sent)).toContain(sent);
    expect(await redis.llen(`${prefix}queue:default`)).toBe(0);
  });

  it("ticks on vercel.json's cron path with CRON_SECRET, and refuses it without", async () => {
    const vercelJson = readFileSync(join(exampleDir("vercel"), "vercel.json"), "utf8");
    const { crons } = JSON.parse(vercelJson) as { crons: { path: string }[] };
    const cron = (token: string) =>
      fetch(`${project.url}${crons[0]!.path}`, { headers: { authorization: `Bearer ${token}` } });
    expect((await cron("wrong-secret-0123456789")).status).toBe(401);
    const tick = await cron(CRON_SECRET);
    expect(tick.status).toBe(200);
    expect(await tick.json()).toMatchObject({ failed: 0, more: false });
  });

  it("answers 400 to a signup without an email, and enqueues nothing", async () => {
    const res = await signup(JSON.stringify({ name: "no email" }));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'send {"email": "you@example.com"}' });
    expect(await redis.llen(`${prefix}queue:default`)).toBe(0);
  });
});
