import { describe, expect, it } from "vitest";
import { dashboard } from "../functions/dashboard/index.js";
import { tickqVercel } from "../functions/vercel/handler.js";
import { adapterCases } from "./helpers/adapters.js";
import { useHarness } from "./helpers/harness.js";

describe("the Vercel function", () => {
  const h = useHarness(adapterCases[1]!, "vercel");
  const setup = () => {
    const { restUrl, restToken } = adapterCases[1]!.endpoints();
    const ran: string[] = [];
    const handler = tickqVercel({
      jobs: { greet: ([who]: [string]) => void ran.push(who) },
      env: { UPSTASH_REDIS_REST_URL: restUrl, UPSTASH_REDIS_REST_TOKEN: restToken, CRON_SECRET: "cron", TICKQ_PREFIX: h.prefix },
    });
    return { handler, ran };
  };
  const req = (path: string, init: RequestInit & { token?: string } = {}) =>
    new Request(`https://example.vercel.app${path}`, { ...init, headers: { Authorization: `Bearer ${init.token ?? "cron"}`, ...(init.headers ?? {}) } });

  it("enqueues with POST /api/jobs and runs a tick on GET /api/tick (Vercel Cron)", async () => {
    const { handler, ran } = setup();
    const enq = await handler.POST(req("/api/jobs", { method: "POST", body: JSON.stringify({ name: "greet", args: ["vercel"] }) }));
    expect(enq.status).toBe(201);
    const tick = await handler.GET(req("/api/tick"));
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

  it("serves the dashboard at /api/dashboard, its login by CRON_SECRET too", async () => {
    const { restUrl, restToken } = adapterCases[1]!.endpoints();
    const handler = tickqVercel({
      jobs: {}, dashboard: dashboard(),
      env: { UPSTASH_REDIS_REST_URL: restUrl, UPSTASH_REDIS_REST_TOKEN: restToken, CRON_SECRET: "cron", TICKQ_PREFIX: h.prefix },
    });
    const first = await handler.GET(new Request("https://example.vercel.app/api/dashboard"));
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/api/dashboard/login");
    const login = await handler.POST(new Request("https://example.vercel.app/api/dashboard/login", { method: "POST", body: new URLSearchParams({ secret: "cron" }) }));
    expect(login.headers.get("set-cookie")).toMatch(/Path=\/api\/dashboard; HttpOnly; Secure; SameSite=Strict/);
    const page = await handler.GET(new Request("https://example.vercel.app/api/dashboard", { headers: { cookie: login.headers.get("set-cookie")!.split(";")[0]! } }));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('href="/api/dashboard/dead"');
  });

  it("refuses to serve without a secret", async () => {
    const { restUrl, restToken } = adapterCases[1]!.endpoints();
    const handler = tickqVercel({ jobs: {}, env: { UPSTASH_REDIS_REST_URL: restUrl, UPSTASH_REDIS_REST_TOKEN: restToken } });
    const res = await handler.GET(req("/api/tick"));
    expect(res.status).toBe(500);
    expect((await res.json()).error).toMatch(/TICKQ_SECRET or CRON_SECRET/);
  });

  it("says which settings are missing", async () => {
    const handler = tickqVercel({ jobs: {}, env: {} });
    const res = await handler.GET(req("/api/tick"));
    expect(res.status).toBe(500);
    expect((await res.json()).error).toMatch(/UPSTASH_REDIS_REST_URL/);
  });
});
