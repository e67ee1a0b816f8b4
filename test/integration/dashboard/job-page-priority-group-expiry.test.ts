// A job enqueued over HTTP with `priority`, `group` and `expiresInMs`
// (POST /jobs) carries them: tq.jobs.find answers them, and the dashboard's
// job page shows its priority, group and expiry.
import { describe, expect, it } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import { createApp } from "../../../src/http/app.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { login } from "./login.js";

const SECRET = "job-page-order-s3cret";

describe.each(adapterCases)("priority, group and expiry from POST /jobs to the job page over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "dash-job-order");

  it("POST /jobs takes them; find answers them; the job's page shows them", async () => {
    const tickq = h.make({ report: (_args: [string]) => {} });
    const app = createApp({ tickq, secrets: [SECRET], dashboard: dashboard() });
    const res = await app.request("/jobs", {
      method: "POST",
      headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "report", args: ["q4"], priority: 7, group: "tenant-a", expiresInMs: 60_000 }),
    });
    expect(res.status).toBe(201);
    const { jid } = (await res.json()) as { jid: string };
    const found = await tickq.jobs.find(jid);
    expect(found).toMatchObject({ state: "queued", priority: 7, group: "tenant-a" });
    expect(found?.expiresAt).toBeGreaterThan(Date.now() + 50_000);
    const browser = await login(app, SECRET);
    const shown = await browser.get(`/dashboard/jobs/${jid}`);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain("<dt>priority</dt><dd>7</dd>");
    expect(shown.html).toContain("<dt>group</dt><dd>tenant-a</dd>");
    expect(shown.html).toMatch(/<dt>expires<\/dt><dd><time datetime="[^"]+"/);
  });
});
