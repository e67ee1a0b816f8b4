// Least privilege: TICKQ_SECRET opens everything; TICKQ_READ_SECRET reads
// every GET route and is refused on every route that changes anything;
// CRON_SECRET starts ticks and nothing else; a secret under 16 characters
// is refused at start.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { dashboard } from "../../../src/dashboard/index.js";
import { startServer } from "../../../src/platforms/node/server.js";
import { TickqError } from "../../../src/errors.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { redisUrl } from "../../helpers/redis.js";
import { login } from "../dashboard/login.js";

const ADMIN = "admin-secret-0123456789";
const READ = "read-secret-0123456789";
const CRON = "cron-secret-0123456789";
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Routes served before auth, to anyone: /health, the favicon and the pointer at / (src/http/routes/front.ts). */
const OPEN = new Set(["/health", "/favicon.ico", "/"]);

/** Every route of the app as "METHOD path", parameters filled in; the dashboard has its own login. */
function routesOf(app: { routes: { method: string; path: string }[] }): [string, string][] {
  const seen = new Set<string>();
  for (const r of app.routes) {
    if (r.method === "ALL" || r.path.startsWith("/dashboard")) continue;
    seen.add(`${r.method} ${r.path.replace(":jid", "j1").replace(":name", "default")}`);
  }
  return [...seen].map((s) => s.split(" ") as [string, string]);
}

describe.each(adapterCases)("secrets with least privilege over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "sec-access");
  const setup = () => {
    const tickq = h.make({ hello: () => {} });
    const app = createApp({ tickq, secrets: [ADMIN], readSecrets: [READ], tickSecrets: [CRON] });
    return { tickq, app };
  };

  it("refuses TICKQ_READ_SECRET on every route that changes anything, and changes nothing", async () => {
    const { tickq, app } = setup();
    await tickq.enqueue("hello", ["x"]);
    await h.redis.zadd(`${h.prefix}dead`, 1, JSON.stringify({ class: "hello", args: [], jid: "j1", queue: "default" }));
    const changing = routesOf(app).filter(([method]) => method !== "GET");
    expect(changing.map(([m, p]) => `${m} ${p}`)).toEqual(
      expect.arrayContaining([
        "POST /tick",
        "POST /jobs",
        "DELETE /jobs",
        "POST /jobs/j1/retry",
        "POST /queues/default/pause",
      ]),
    );
    for (const [method, path] of changing) {
      const query = path === "/jobs" || path === "/jobs/retry-all" ? "?state=dead" : "";
      const res = await app.request(`${path}${query}`, {
        method,
        headers: { ...bearer(READ), "content-type": "application/json" },
        body: method === "POST" ? JSON.stringify({ name: "hello", args: ["y"] }) : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(await res.json()).toMatchObject({ code: "READ_ONLY" });
    }
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(1);
    expect(await h.redis.zcard(`${h.prefix}dead`)).toBe(1);
    expect(await h.redis.exists(`${h.prefix}paused`)).toBe(0);
    expect(await h.redis.exists(`${h.prefix}stat:processed`)).toBe(0);
  });

  it("lets TICKQ_READ_SECRET read every GET route", async () => {
    const { app } = setup();
    const reading = routesOf(app).filter(([method]) => method === "GET");
    expect(reading.length).toBeGreaterThan(5);
    for (const [, path] of reading) {
      if (path === "/tick") continue; // a tick changes state: GET /tick is Vercel Cron's, checked below
      const query = path === "/jobs" ? "?state=queued" : "";
      const res = await app.request(`${path}${query}`, { headers: bearer(READ) });
      expect([200, 204, 404], `GET ${path}`).toContain(res.status); // 404: no job j1; 204: the favicon
    }
    expect((await app.request("/tick", { headers: bearer(READ) })).status).toBe(403);
  });

  it("lets CRON_SECRET start ticks and nothing else", async () => {
    const { tickq, app } = setup();
    await tickq.enqueue("hello", ["x"]);
    expect((await app.request("/tick", { method: "POST", headers: bearer(CRON) })).status).toBe(200);
    expect((await app.request("/tick", { headers: bearer(CRON) })).status).toBe(200);
    for (const [method, path] of routesOf(app)) {
      if (path === "/tick" || OPEN.has(path)) continue; // open to anyone
      const query = path === "/jobs" || path === "/jobs/retry-all" ? "?state=dead" : "";
      const res = await app.request(`${path}${query}`, {
        method,
        headers: { ...bearer(CRON), "content-type": "application/json" },
        body: method === "POST" ? "{}" : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(await res.json()).toMatchObject({ code: "TICK_ONLY" });
    }
  });

  it("opens every route with TICKQ_SECRET", async () => {
    const { app } = setup();
    expect((await app.request("/stats", { headers: bearer(ADMIN) })).status).toBe(200);
    const res = await app.request("/jobs", {
      method: "POST",
      headers: { ...bearer(ADMIN), "content-type": "application/json" },
      body: JSON.stringify({ name: "hello", args: ["z"] }),
    });
    expect(res.status).toBe(201);
    expect((await app.request("/queues/default/pause", { method: "POST", headers: bearer(ADMIN) })).status).toBe(200);
  });
});

describe("the dashboard with least privilege", () => {
  const h = useHarness(adapterCases[0]!, "sec-access-dash");

  it("lets TICKQ_READ_SECRET look but change nothing, and log out", async () => {
    const app = createApp({ tickq: h.make({}), secrets: [ADMIN], readSecrets: [READ], dashboard: dashboard() });
    const reader = await login(app, READ);
    expect((await reader.get("/dashboard")).status).toBe(200);
    const token = await reader.token();
    expect(token).not.toBe("");
    const pause = await reader.post("/dashboard/queues/default/pause", { _csrf: token });
    expect(pause.status).toBe(403);
    expect(await h.redis.exists(`${h.prefix}paused`)).toBe(0);
    expect((await reader.post("/dashboard/logout", { _csrf: token })).status).toBe(303);
    const admin = await login(app, ADMIN);
    expect((await admin.post("/dashboard/queues/default/pause", { _csrf: await admin.token() })).status).toBe(303);
    expect(await h.redis.sismember(`${h.prefix}paused`, "default")).toBe(1);
  });

  it("is not served to CRON_SECRET: with it alone, there is no dashboard", async () => {
    const app = createApp({ tickq: h.make({}), secrets: [], tickSecrets: [CRON], dashboard: dashboard() });
    expect((await app.request("/dashboard")).status).toBe(401);
    const both = createApp({ tickq: h.make({}), secrets: [ADMIN], tickSecrets: [CRON], dashboard: dashboard() });
    const res = await both.request("/dashboard/login", {
      method: "POST",
      body: new URLSearchParams({ secret: CRON }),
      headers: { "sec-fetch-site": "same-origin" },
    });
    expect(res.status).toBe(401);
  });
});

describe("secrets too short to resist guessing", () => {
  const h = useHarness(adapterCases[0]!, "sec-short");

  it("are refused at start with a message naming the setting and openssl rand -hex 32, never the secret", async () => {
    const tickq = h.make({});
    const short = "fifteen-chars-x";
    expect(short).toHaveLength(15);
    // each names the setting to change, on whichever platform handler read it from the environment
    for (const [options, setting] of [
      [{ secrets: [short] }, "TICKQ_SECRET, or the secrets option"],
      [{ secrets: [ADMIN], readSecrets: [short] }, "TICKQ_READ_SECRET"],
      [{ secrets: [ADMIN], tickSecrets: [short] }, "CRON_SECRET"],
    ] as [{ secrets: string[]; readSecrets?: string[]; tickSecrets?: string[] }, string][]) {
      let thrown: unknown;
      try {
        createApp({ tickq, ...options });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(TickqError);
      expect((thrown as TickqError).message).toMatch(/shorter than 16 characters.*openssl rand -hex 32/);
      expect((thrown as TickqError).message).toContain(setting);
      expect((thrown as TickqError).message).not.toContain(short);
    }
    expect(() => createApp({ tickq, secrets: [`${short}y`] })).not.toThrow();
    await expect(
      startServer({ redisUrl: redisUrl(), jobs: {}, prefix: h.prefix, port: 0, secret: short, tickEveryMs: 0 }),
    ).rejects.toThrow(/openssl rand -hex 32/);
  });
});
