import { describe, expect, it, vi } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import { tickqVercel } from "../../../src/platforms/vercel/handler.js";
import { adapterCase, testEndpoints } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe("the Vercel function", () => {
  const h = useHarness(adapterCase("upstash"), "vercel");
  const SECRET = "vercel-secret-for-tests";
  const CRON = "vercel-cron-secret-for-tests";
  const setup = () => {
    const { restUrl, restToken } = testEndpoints();
    const ran: string[] = [];
    const handler = tickqVercel({
      jobs: { greet: ([who]: [string]) => void ran.push(who) },
      env: {
        UPSTASH_REDIS_REST_URL: restUrl,
        UPSTASH_REDIS_REST_TOKEN: restToken,
        TICKQ_SECRET: SECRET,
        CRON_SECRET: CRON,
        TICKQ_PREFIX: h.prefix,
      },
    });
    return { handler, ran };
  };
  const req = (path: string, init: RequestInit & { token?: string } = {}) =>
    new Request(`https://example.vercel.app${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${init.token ?? SECRET}`, ...(init.headers ?? {}) },
    });

  it("enqueues with POST /api/jobs and runs a tick on GET /api/tick (Vercel Cron)", async () => {
    const { handler, ran } = setup();
    const enq = await handler.POST(
      req("/api/jobs", { method: "POST", body: JSON.stringify({ name: "greet", args: ["vercel"] }) }),
    );
    expect(enq.status).toBe(201);
    const tick = await handler.GET(req("/api/tick", { token: CRON }));
    expect(tick.status).toBe(200);
    expect(await tick.json()).toMatchObject({ succeeded: 1, more: false });
    expect(ran).toEqual(["vercel"]);
  });

  it("answers 401 to a wrong secret and serves /api/health openly", async () => {
    const { handler } = setup();
    expect((await handler.GET(req("/api/tick", { token: "nope" }))).status).toBe(401);
    const health = await handler.GET(new Request("https://example.vercel.app/api/health"));
    expect(await health.json()).toMatchObject({ ok: true });
  });

  it("lets CRON_SECRET start ticks and nothing else", async () => {
    const { handler } = setup();
    const enq = await handler.POST(
      req("/api/jobs", { method: "POST", token: CRON, body: JSON.stringify({ name: "greet", args: ["no"] }) }),
    );
    expect(enq.status).toBe(403);
    expect(await enq.json()).toMatchObject({ code: "TICK_ONLY" });
    expect((await handler.GET(req("/api/stats", { token: CRON }))).status).toBe(403);
  });

  it("serves the dashboard at /api/dashboard, its login by TICKQ_SECRET", async () => {
    const { restUrl, restToken } = testEndpoints();
    const handler = tickqVercel({
      jobs: {},
      dashboard: dashboard(),
      env: {
        UPSTASH_REDIS_REST_URL: restUrl,
        UPSTASH_REDIS_REST_TOKEN: restToken,
        TICKQ_SECRET: SECRET,
        CRON_SECRET: CRON,
        TICKQ_PREFIX: h.prefix,
      },
    });
    const first = await handler.GET(new Request("https://example.vercel.app/api/dashboard"));
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/api/dashboard/login");
    const login = await handler.POST(
      new Request("https://example.vercel.app/api/dashboard/login", {
        method: "POST",
        body: new URLSearchParams({ secret: SECRET }),
      }),
    );
    expect(login.headers.get("set-cookie")).toMatch(/Path=\/api\/dashboard; HttpOnly; Secure; SameSite=Strict/);
    const page = await handler.GET(
      new Request("https://example.vercel.app/api/dashboard", {
        headers: { cookie: login.headers.get("set-cookie")!.split(";")[0]! },
      }),
    );
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('href="/api/dashboard/dead"');
  });

  // The caller gets a generic 503 with a stable code; the log says what to fix.
  const logged = async (call: () => Promise<Response>) => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const res = await call();
      return { res, log: spy.mock.calls.map((args) => args.join(" ")).join("\n") };
    } finally {
      spy.mockRestore();
    }
  };

  it("refuses to serve without a secret, saying so in the log", async () => {
    const { restUrl, restToken } = testEndpoints();
    const handler = tickqVercel({
      jobs: {},
      env: { UPSTASH_REDIS_REST_URL: restUrl, UPSTASH_REDIS_REST_TOKEN: restToken },
    });
    const { res, log } = await logged(() => handler.GET(req("/api/tick")));
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: "UNAVAILABLE" });
    expect(log).toMatch(/TICKQ_SECRET or CRON_SECRET/);
  });

  it("says in the log which settings are missing", async () => {
    const handler = tickqVercel({ jobs: {}, env: {} });
    const { res, log } = await logged(() => handler.GET(req("/api/tick")));
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: "UNAVAILABLE" });
    expect(log).toMatch(/UPSTASH_REDIS_REST_URL/);
  });
});
