// examples/node, started as its README says (tsx src/server.ts) against the
// test Redis: a signup through its own route runs the welcome email job.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outputHolding, processedUnder, startExample, type RunningExample } from "../../helpers/examples.js";
import { deleteUnder, directRedis, redisUrl, uniquePrefix } from "../../helpers/redis.js";

/** The Node example started with `env` (plus the test Redis and its own prefix) for one describe block. */
function useNodeExample(name: string, env: Record<string, string>) {
  const redis = directRedis();
  const prefix = uniquePrefix(name);
  let service: RunningExample | undefined;

  beforeAll(async () => {
    service = await startExample("node", "src/server.ts", {
      REDIS_URL: redisUrl(),
      TICKQ_PREFIX: prefix,
      PORT: "0",
      ...env,
    });
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });
  return { redis, prefix, service: () => service! };
}

describe("examples/node", () => {
  const { redis, prefix, service } = useNodeExample("example-node", { TICKQ_SECRET: "node-example-secret-0123" });

  const signup = (body: string) =>
    fetch(`${service().url}/signup`, { method: "POST", body, headers: { "content-type": "application/json" } });

  it("runs the welcome email of a POST /signup", async () => {
    const res = await signup(JSON.stringify({ email: "ada@example.com" }));
    expect(res.status).toBe(201);
    const { jid } = (await res.json()) as { jid: string };
    expect(jid).toMatch(/\S/);
    expect(await processedUnder(redis, prefix, 1)).toBe(1);
    const sent = "welcome email sent to ada@example.com";
    expect(await outputHolding(service(), sent)).toContain(sent);
    expect(await redis.llen(`${prefix}queue:default`)).toBe(0);
  });

  it("answers 400 to a signup without an email, and enqueues nothing", async () => {
    const res = await signup("not json");
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'send {"email": "you@example.com"}' });
    expect(await redis.llen(`${prefix}queue:default`)).toBe(0);
  });
});

describe("examples/node with TICKQ_INSECURE=1 and no secret", () => {
  const { service } = useNodeExample("example-node-insecure", { TICKQ_INSECURE: "1" });

  it("starts, as its refusal without a secret advises, and serves tickq's routes without auth", async () => {
    const res = await fetch(`${service().url}/stats`);
    expect(res.status).toBe(200);
    expect(await res.json()).toHaveProperty("processed");
  });
});
