// The dashboard's Succeeded page and a succeeded job's page, with its result.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { dashboard } from "../../../src/dashboard/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { login } from "./login.js";

const SECRET = "succeeded-s3cret-for-tests";

describe.each(adapterCases)("the dashboard's succeeded jobs over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "dash-succeeded");

  it("lists succeeded jobs, shows one with its result and duration, and deletes them all", async () => {
    const tickq = h.make(
      { thumb: ([w]: [number]) => ({ width: w, note: "<b>x</b>" }), big: () => "y".repeat(300) },
      { keepCompleted: { count: 10 }, maxResultBytes: 100 },
    );
    const app = createApp({ tickq, secrets: [SECRET], dashboard: dashboard() });
    const browser = await login(app, SECRET);
    const [jid, big] = await tickq.enqueueBulk([
      { name: "thumb", args: [640] },
      { name: "big", args: [] },
    ]);
    await tickq.tick();

    const list = await browser.get("/dashboard/succeeded");
    expect(list.status).toBe(200);
    expect(list.html).toContain(`data-jid="${jid}"`);
    expect(list.html).toContain(">Succeeded</a>");

    const one = await browser.get(`/dashboard/jobs/${jid}`);
    expect(one.html).toMatch(/<dt>finished<\/dt>/);
    expect(one.html).toMatch(/<dt>duration<\/dt><dd>\d+ ms<\/dd>/);
    expect(one.html).toContain("<h2>Result</h2>");
    expect(one.html).toContain("&quot;width&quot;: 640"); // escaped, never raw HTML
    expect(one.html).not.toContain("<b>x</b>");

    expect((await browser.get(`/dashboard/jobs/${big}`)).html).toMatch(
      /Not kept: the result is 302 bytes of JSON, over maxResultBytes \(100\)/,
    );

    const token = await browser.token("/dashboard/succeeded");
    await browser.post("/dashboard/succeeded/delete-all", { _csrf: token });
    expect(await h.redis.exists(`${h.prefix}succeeded`)).toBe(0);
  });
});
