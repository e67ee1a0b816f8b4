// Logout ends a dashboard session on the server: a copy of its cookie stops
// working, while other sessions go on. A junk cookie of the same name (set
// for a more specific path, sent first) does not hide the good one.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { dashboard } from "../../../src/dashboard/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { asBrowser, login } from "../dashboard/login.js";

const SECRET = "sessions-secret-0123456789";

describe.each(adapterCases)("dashboard sessions over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "dash-sessions");
  const setup = () => createApp({ tickq: h.make({ ok: () => {} }), secrets: [SECRET], dashboard: dashboard() });

  it("logout ends the session: a copied cookie gets the login form, another session goes on", async () => {
    const app = setup();
    const browser = await login(app, SECRET);
    const other = await login(app, SECRET);
    const copy = asBrowser(app, browser.cookie);
    expect((await copy.get("/dashboard")).status).toBe(200);
    expect((await browser.post("/dashboard/logout", { _csrf: await browser.token() })).status).toBe(303);
    const after = await copy.get("/dashboard/dead");
    expect(after.status).toBe(303);
    expect(after.location).toBe("/dashboard/login");
    expect((await copy.post("/dashboard/queues/default/pause", { _csrf: "x" })).status).toBe(401);
    expect((await other.get("/dashboard")).status).toBe(200);
  });

  it("the mark logout leaves expires with the cookie", async () => {
    const app = setup();
    const browser = await login(app, SECRET);
    await browser.post("/dashboard/logout", { _csrf: await browser.token() });
    const keys = await h.redis.keys(`${h.prefix}dashboard:ended:*`);
    expect(keys).toHaveLength(1);
    const ttl = await h.redis.pttl(keys[0]!);
    expect(ttl).toBeGreaterThan(11 * 3600_000);
    expect(ttl).toBeLessThanOrEqual(12 * 3600_000);
  });

  it("a junk tickq_session sent first does not hide a good one", async () => {
    const app = setup();
    const good = await login(app, SECRET);
    for (const junk of ["junk", "n0nce.99999999999999.bad-mac", "a.b.c.d"]) {
      const browser = asBrowser(app, `tickq_session=${junk}; ${good.cookie}`);
      expect((await browser.get("/dashboard")).status, junk).toBe(200);
    }
    expect((await asBrowser(app, "tickq_session=junk").get("/dashboard")).status).toBe(303);
  });
});
