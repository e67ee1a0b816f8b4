// The dashboard's Succeeded page, each row with its duration and result (or why
// it was not kept), and a succeeded job's page, with its result.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { dashboard } from "../../../src/dashboard/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { login } from "./login.js";

const SECRET = "succeeded-s3cret-for-tests";

describe.each(adapterCases)("the dashboard's succeeded jobs over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "dash-succeeded");

  it("lists succeeded jobs with duration and result, shows one with its result and duration, and deletes them all", async () => {
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
    // each row with the duration and the result jobs.list() reads
    const listed = await tickq.jobs.list("succeeded", { limit: 25 });
    for (const job of listed.jobs) {
      const cells = new RegExp(`<tr data-jid="${job.jid}">.*?</tr>`, "s").exec(list.html)?.[0] ?? "";
      expect(cells).toContain(`data-duration="${job.durationMs}">${job.durationMs} ms</td>`);
    }
    const row = (id: string) => new RegExp(`<tr data-jid="${id}">.*?</tr>`, "s").exec(list.html)?.[0] ?? "";
    expect(row(jid!)).toContain(
      "<code>{&quot;width&quot;:640,&quot;note&quot;:&quot;&lt;b&gt;x&lt;/b&gt;&quot;}</code>",
    );
    expect(row(big!)).toContain("not kept: the result is 302 bytes of JSON, over maxResultBytes (100)");

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

  it("with no keepCompleted, an empty Succeeded list says that succeeded jobs leave no record without it", async () => {
    const tickq = h.make({ thumb: () => 1 });
    const app = createApp({ tickq, secrets: [SECRET], dashboard: dashboard() });
    const browser = await login(app, SECRET);
    await tickq.enqueue("thumb", []);
    expect(await tickq.tick()).toMatchObject({ succeeded: 1 });
    const list = await browser.get("/dashboard/succeeded");
    expect(list.html).toContain(
      "No jobs here. A job that succeeds leaves a record here only with createTickq({ keepCompleted })",
    );
  });
});
