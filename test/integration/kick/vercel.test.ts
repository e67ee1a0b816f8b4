// The Vercel function with kick on: the kicked tick goes to waitUntil (from
// @vercel/functions, or Vercel's request context that it reads), and every
// createTickq option passes through; TICKQ_INSECURE serves without a secret.
import { describe, expect, it } from "vitest";
import { tickqVercel, vercelWaitUntil } from "../../../src/platforms/vercel/handler.js";
import { adapterCase, testEndpoints } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe("the Vercel function: kick, options, TICKQ_INSECURE", () => {
  const h = useHarness(adapterCase("upstash"), "vercel-kick");
  const env = () => {
    const { restUrl, restToken } = testEndpoints();
    return { UPSTASH_REDIS_REST_URL: restUrl, UPSTASH_REDIS_REST_TOKEN: restToken, TICKQ_PREFIX: h.prefix };
  };
  const post = (path: string, body: unknown, token?: string, origin = "https://app.vercel.app") =>
    new Request(`${origin}${path}`, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    });

  it("POST /api/jobs kicks a tick into waitUntil; the response does not wait for it", async () => {
    const ran: string[] = [];
    const kept: Promise<unknown>[] = [];
    const seen: string[] = [];
    const handler = tickqVercel({
      jobs: { greet: ([who]: [string]) => void ran.push(who) },
      env: { ...env(), TICKQ_SECRET: "s-secret-for-tests" },
      kick: true,
      waitUntil: (p) => void kept.push(p),
      maxRetries: 2, // any createTickq option passes through
      logger: { info: (m) => seen.push(m), warn: (m) => seen.push(m), error: (m) => seen.push(m) },
    });
    const res = await handler.POST(post("/api/jobs", { name: "greet", args: ["kicked"] }, "s-secret-for-tests"));
    expect(res.status).toBe(201);
    expect(kept).toHaveLength(1);
    await Promise.all(kept);
    expect(ran).toEqual(["kicked"]);
    // its tickq, for your own routes, kicks the same way
    await handler.tickq().enqueue("greet", ["own"]);
    await Promise.all(kept);
    expect(ran).toEqual(["kicked", "own"]);
  });

  it("reads Vercel's request context for waitUntil, as @vercel/functions does", () => {
    const symbol = Symbol.for("@vercel/request-context");
    const kept: Promise<unknown>[] = [];
    const g = globalThis as Record<symbol, unknown>;
    g[symbol] = { get: () => ({ waitUntil: (p: Promise<unknown>) => void kept.push(p) }) };
    try {
      vercelWaitUntil(Promise.resolve(1));
      expect(kept).toHaveLength(1);
    } finally {
      delete g[symbol];
    }
    expect(() => vercelWaitUntil(Promise.resolve(2))).not.toThrow(); // outside Vercel: nothing to keep alive
  });

  it("TICKQ_INSECURE=1 serves without a secret, for local development (loopback hosts only)", async () => {
    const handler = tickqVercel({ jobs: { greet: () => {} }, env: { ...env(), TICKQ_INSECURE: "1" } });
    const res = await handler.POST(post("/api/jobs", { name: "greet", args: [] }, undefined, "http://localhost:3000"));
    expect(res.status).toBe(201);
    expect((await handler.GET(new Request("http://localhost:3000/api/tick"))).status).toBe(200);
    expect((await handler.GET(new Request("https://app.vercel.app/api/tick"))).status).toBe(403);
  });
});

describe("the Vercel function with Redis down", () => {
  it("answers 503 within about 2 s, saying Redis failed, for /jobs and /tick", async () => {
    const handler = tickqVercel({
      jobs: { greet: () => {} },
      env: {
        UPSTASH_REDIS_REST_URL: "http://127.0.0.1:1",
        UPSTASH_REDIS_REST_TOKEN: "t",
        TICKQ_SECRET: "s-secret-for-tests",
      },
    });
    for (const request of [
      new Request("https://app.vercel.app/api/jobs", {
        method: "POST",
        body: JSON.stringify({ name: "greet", args: [] }),
        headers: { Authorization: "Bearer s-secret-for-tests" },
      }),
      new Request("https://app.vercel.app/api/tick", { headers: { Authorization: "Bearer s-secret-for-tests" } }),
    ]) {
      const t = Date.now();
      const res = await handler.fetch(request);
      expect(Date.now() - t, request.url).toBeLessThan(3_000);
      expect(res.status, request.url).toBe(503);
      expect(((await res.json()) as { error: string }).error).toMatch(/Redis call failed/);
    }
  });
});
