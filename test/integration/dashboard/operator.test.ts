// What a new operator's browser runs into around the dashboard: the
// favicon, the root URL, a mistyped page or queue.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { dashboard } from "../../../src/dashboard/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { login } from "./login.js";

const SECRET = "operator-s3cret-for-tests";

describe.each(adapterCases)("the dashboard for an operator over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "dash-ops");
  const setup = async () => {
    const tickq = h.make({ ok: () => {} });
    const app = createApp({ tickq, secrets: [SECRET], dashboard: dashboard() });
    return { tickq, app, browser: await login(app, SECRET) };
  };

  it("/favicon.ico answers 204 without a secret, not 401", async () => {
    const { app } = await setup();
    const res = await app.request("/favicon.ico");
    expect(res.status).toBe(204);
  });

  it("GET / sends a browser to the dashboard and tells anything else where it and /health are", async () => {
    const { app } = await setup();
    const browser = await app.request("/", { headers: { accept: "text/html,application/xhtml+xml" } });
    expect(browser.status).toBe(302);
    expect(browser.headers.get("location")).toBe("/dashboard");
    const script = await app.request("/");
    expect(script.status).toBe(200);
    expect(await script.json()).toEqual({ service: "tickq", dashboard: "/dashboard", health: "/health" });
  });

  it("GET / without a dashboard says so, and does not redirect", async () => {
    const app = createApp({ tickq: h.make({}), secrets: [SECRET] });
    const res = await app.request("/", { headers: { accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ service: "tickq", dashboard: null, health: "/health" });
  });

  it("an unknown /dashboard page is an HTML 404 page, not the API's JSON 401", async () => {
    const { browser } = await setup();
    const res = await browser.get("/dashboard/nope");
    expect(res.status).toBe(404);
    expect(res.html).toContain("<html");
    expect(res.html).toContain("No page here.");
  });

  it("a queue that does not exist is a 404 page that offers no Pause button", async () => {
    const { tickq, browser } = await setup();
    await tickq.enqueue("ok", []);
    const res = await browser.get("/dashboard/queues/defualt");
    expect(res.status).toBe(404);
    expect(res.html).toContain("No queue named defualt.");
    expect(res.html).not.toContain(">Pause</button>");
    const real = await browser.get("/dashboard/queues/default");
    expect(real.status).toBe(200);
    expect(real.html).toContain(">Pause</button>");
  });
});
