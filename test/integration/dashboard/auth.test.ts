// The dashboard's door: the login form, the session cookie and its flags,
// CSRF and origin checks on every state change, logout, the open dashboard
// of `insecure`, and the API's bearer auth left as it was.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { dashboard } from "../../../src/dashboard/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { asBrowser, login, tokenIn } from "./login.js";

const SECRET = "dash-s3cret-for-tests";
const OTHER = "cron-s3cret-for-tests";

describe("the dashboard's login, sessions and CSRF checks", () => {
  const h = useHarness(adapterCases[0]!, "dash-auth");
  const setup = (
    secrets: (string | undefined)[] = [SECRET, OTHER],
    more: { insecure?: boolean; basePath?: string } = {},
  ) => {
    const tickq = h.make({ ok: () => {} });
    return { tickq, app: createApp({ tickq, secrets, dashboard: dashboard(), ...more }) };
  };
  const paused = async () => (await h.redis.smembers(`${h.prefix}paused`)).sort();

  it("sends a browser without a session to the login form, and refuses a wrong secret", async () => {
    const { app } = setup();
    const first = await app.request("/dashboard/dead");
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/dashboard/login");
    const form = await app.request("/dashboard/login");
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('type="password"');
    const wrong = await app.request("/dashboard/login", {
      method: "POST",
      body: new URLSearchParams({ secret: "nope" }),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expect(await wrong.text()).toContain("Wrong secret.");
    const empty = await app.request("/dashboard/login", { method: "POST", body: new URLSearchParams({}) });
    expect(empty.status).toBe(401);
  });

  it("logs in with any accepted secret: an HttpOnly, SameSite=Strict cookie without the secret, Secure over https", async () => {
    const { app } = setup();
    for (const [url, secure] of [
      ["http://localhost/dashboard/login", false],
      ["https://tickq.example/dashboard/login", true],
    ] as const) {
      const res = await app.request(url, { method: "POST", body: new URLSearchParams({ secret: OTHER }) });
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/dashboard");
      const cookie = res.headers.get("set-cookie")!;
      expect(cookie).toMatch(/^tickq_session=[\w-]+\.\d+\.[\w-]+;/);
      expect(cookie).toContain("HttpOnly");
      expect(cookie).toContain("SameSite=Strict");
      expect(cookie).toContain("Path=/dashboard");
      expect(cookie.includes("Secure")).toBe(secure);
      expect(cookie).not.toContain(OTHER);
      const page = await asBrowser(app, cookie.split(";")[0]!).get(url.replace("/login", ""));
      expect(page.status).toBe(200);
      expect(page.html).toContain("<h1>Overview</h1>");
    }
    // behind a TLS-terminating proxy
    const proxied = await app.request("/dashboard/login", {
      method: "POST",
      body: new URLSearchParams({ secret: SECRET }),
      headers: { "x-forwarded-proto": "https" },
    });
    expect(proxied.headers.get("set-cookie")).toContain("Secure");
  });

  it("accepts no forged, tampered or expired-key cookie", async () => {
    const { app } = setup();
    const browser = await login(app, SECRET);
    const [nonce, expires, mac] = browser.cookie.slice("tickq_session=".length).split(".");
    const forged = [
      `tickq_session=${nonce}.${Number(expires) + 1}.${mac}`,
      `tickq_session=${nonce}x.${expires}.${mac}`,
      `tickq_session=${nonce}.${expires}.${mac!.slice(1)}A`,
      `tickq_session=${nonce}.${expires}`,
      "tickq_session=",
    ];
    for (const cookie of forged) expect((await asBrowser(app, cookie).get("/dashboard")).status, cookie).toBe(303);
    // the secret that signed it is no longer accepted (rotated): the session ends
    const rotated = createApp({ tickq: h.make({}), secrets: [OTHER], dashboard: dashboard() });
    expect((await asBrowser(rotated, browser.cookie).get("/dashboard")).status).toBe(303);
  });

  it("refuses a state change without the session's CSRF token, or from another site (403), and does it with both", async () => {
    const { app } = setup();
    const browser = await login(app, SECRET);
    const token = await browser.token();
    expect(token).not.toBe("");
    const pause = "/dashboard/queues/default/pause";
    expect((await browser.post(pause, {})).status).toBe(403);
    expect((await browser.post(pause, { _csrf: "forged" })).status).toBe(403);
    expect((await browser.post(pause, { _csrf: token }, { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await browser.post(pause, { _csrf: token }, { origin: "https://evil.example" })).status).toBe(403);
    expect((await browser.post(pause, { _csrf: token }, { origin: "null" })).status).toBe(403);
    // another session's token does not fit this one
    const other = await login(app, SECRET);
    expect((await browser.post(pause, { _csrf: await other.token() })).status).toBe(403);
    // no session at all
    expect((await app.request(pause, { method: "POST", body: new URLSearchParams({ _csrf: token }) })).status).toBe(
      401,
    );
    expect(await paused()).toEqual([]);

    const done = await browser.post(pause, { _csrf: token, back: "/dashboard/queues" }, { origin: "http://localhost" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toMatch(/^\/dashboard\/queues\?done=Queue\+default\+paused/);
    expect(await paused()).toEqual(["default"]);
  });

  it("reads at most a small form from anyone, logged in or not: a huge body is a 413, before the secret is compared", async () => {
    const { app } = setup();
    const huge = "a".repeat(2 * 1024 * 1024);
    // Streamed, with no Content-Length to trust: the reading must stop, not buffer it all.
    const streamed = (text: string) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < text.length; i += 64 * 1024)
            controller.enqueue(new TextEncoder().encode(text.slice(i, i + 64 * 1024)));
          controller.close();
        },
      });
    const form = { "content-type": "application/x-www-form-urlencoded" };
    for (const body of [`secret=${huge}`, streamed(`secret=${huge}`)]) {
      const res = await app.request("/dashboard/login", {
        method: "POST",
        body,
        headers: form,
        duplex: "half",
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(res.headers.get("set-cookie")).toBeNull();
    }
    const browser = await login(app, SECRET);
    const token = await browser.token();
    const res = await browser.post("/dashboard/queues/default/pause", { _csrf: token, back: `/dashboard/${huge}` });
    expect(res.status).toBe(413);
    expect(await paused()).toEqual([]);
  });

  it("answers a body that is not a form with a 400, not a 500", async () => {
    const { app } = setup();
    const broken = { "content-type": "multipart/form-data; boundary=xyz" };
    const anonymous = await app.request("/dashboard/login", {
      method: "POST",
      body: "not multipart at all",
      headers: broken,
    });
    expect(anonymous.status).toBe(400);
    expect(anonymous.headers.get("set-cookie")).toBeNull();
    const browser = await login(app, SECRET);
    const res = await browser.post("/dashboard/queues/default/pause", {}, broken);
    expect(res.status).toBe(400);
    expect(await paused()).toEqual([]);
  });

  it("sends the overview's live part, forms and all, with the pages' headers: never framed, never cached", async () => {
    const { app, tickq } = setup();
    await tickq.enqueue("ok", []); // a queue, so a Pause button: a form with the session's token
    const browser = await login(app, SECRET);
    const res = await app.request("/dashboard/overview", { headers: { cookie: browser.cookie } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('name="_csrf"');
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("refuses a login posted from another site", async () => {
    const { app } = setup();
    const res = await app.request("/dashboard/login", {
      method: "POST",
      body: new URLSearchParams({ secret: SECRET }),
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it("goes back only to a page of the dashboard after an action", async () => {
    const { app } = setup();
    const browser = await login(app, SECRET);
    const token = await browser.token();
    for (const back of [
      "https://evil.example/dashboard",
      "//evil.example/dashboard",
      "/\\evil.example/dashboard",
      "/elsewhere",
      "/dashboard/../stats",
    ]) {
      const res = await browser.post("/dashboard/queues/default/resume", { _csrf: token, back });
      expect(res.headers.get("location"), back).toMatch(/^\/dashboard\?done=/);
    }
    const kept = await browser.post("/dashboard/queues/default/resume", {
      _csrf: token,
      back: "/dashboard/dead?name=x",
    });
    expect(kept.headers.get("location")).toMatch(/^\/dashboard\/dead\?name=x&done=/);
  });

  it("logs out: the cookie is cleared and the next page is the login form", async () => {
    const { app } = setup();
    const browser = await login(app, SECRET);
    const res = await browser.post("/dashboard/logout", { _csrf: await browser.token() });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/login");
    expect(res.headers.get("set-cookie")).toMatch(/^tickq_session=; Max-Age=0; Path=\/dashboard/);
    expect((await browser.post("/dashboard/logout", {})).status).toBe(401); // the session itself has ended
  });

  it("leaves the API's bearer auth as it was: a session cookie opens no API route", async () => {
    const { app } = setup();
    const browser = await login(app, SECRET);
    expect((await app.request("/stats", { headers: { Authorization: `Bearer ${SECRET}` } })).status).toBe(200);
    expect((await app.request("/stats", { headers: { cookie: browser.cookie } })).status).toBe(401);
    // a dashboard page that does not exist is the dashboard's HTML 404, not the API's answer
    expect((await app.request("/dashboard/nowhere", { headers: { cookie: browser.cookie } })).status).toBe(404);
  });

  it("is open under insecure with no secret, as the API is, and still wants the CSRF token", async () => {
    const { app } = setup([], { insecure: true });
    const page = await app.request("/dashboard");
    expect(page.status).toBe(200);
    const token = tokenIn(await page.text());
    expect((await app.request("/dashboard/login")).headers.get("location")).toBe("/dashboard");
    expect(
      (await app.request("/dashboard/queues/default/pause", { method: "POST", body: new URLSearchParams({}) })).status,
    ).toBe(403);
    const res = await app.request("/dashboard/queues/default/pause", {
      method: "POST",
      body: new URLSearchParams({ _csrf: token }),
    });
    expect(res.status).toBe(303);
    expect(await paused()).toEqual(["default"]);
  });

  it("lives under the app's basePath", async () => {
    const { app } = setup([SECRET], { basePath: "/api" });
    expect((await app.request("/api/dashboard")).headers.get("location")).toBe("/api/dashboard/login");
    const res = await app.request("/api/dashboard/login", {
      method: "POST",
      body: new URLSearchParams({ secret: SECRET }),
    });
    expect(res.headers.get("set-cookie")).toContain("Path=/api/dashboard");
    const page = await asBrowser(app, res.headers.get("set-cookie")!.split(";")[0]!, "/api/dashboard").get(
      "/api/dashboard",
    );
    expect(page.html).toContain('href="/api/dashboard/dead"');
    expect(page.html).toContain('action="/api/dashboard/logout"');
  });

  it("lives under a basePath written with a trailing slash, which Hono's basePath() accepts", async () => {
    const { app } = setup([SECRET], { basePath: "/api/" });
    expect((await app.request("/api/dashboard")).headers.get("location")).toBe("/api/dashboard/login");
    const res = await app.request("/api/dashboard/login", {
      method: "POST",
      body: new URLSearchParams({ secret: SECRET }),
    });
    expect(res.headers.get("location")).toBe("/api/dashboard");
    expect(res.headers.get("set-cookie")).toContain("Path=/api/dashboard;");
    const page = await asBrowser(app, res.headers.get("set-cookie")!.split(";")[0]!, "/api/dashboard").get(
      "/api/dashboard",
    );
    expect(page.status).toBe(200);
    expect(page.html).toContain('href="/api/dashboard/dead"');
  });
});
