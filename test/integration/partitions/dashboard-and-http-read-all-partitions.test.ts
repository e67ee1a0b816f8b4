// The HTTP app and the dashboard over a partitioned tickq: they go through
// the same API objects, so the overview counts every partition, the jobs
// routes page with one cursor across partitions, and a dashboard session
// (kept in partition 0) logs in and out.
import { expect, it } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import { createApp } from "../../../src/http/app.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { login } from "../dashboard/login.js";

const SECRET = "partitions-s3cret-for-tests";
const auth = { Authorization: `Bearer ${SECRET}` };

describeOverAdapters(adapterCases, "the app over partitions, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "part-app");

  it("pages /jobs with one cursor and shows every partition's counts on the dashboard", async () => {
    const tickq = h.make(
      { ok: () => {}, fail: { retry: false, perform: () => Promise.reject(new Error("boom")) } },
      { partitions: 3 },
    );
    const app = createApp({ tickq, secrets: [SECRET], dashboard: dashboard() });
    const jids = await tickq.enqueueBulk(Array.from({ length: 5 }, (_, n) => ({ name: "fail" as const, args: [n] })));
    await tickq.tick({ budgetMs: 3_000 });
    await tickq.enqueueBulk(Array.from({ length: 4 }, () => ({ name: "ok" as const, args: [] })));

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query = `/jobs?state=dead&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const res = await app.request(query, { headers: auth });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { jobs: { jid: string }[]; cursor: string | null };
      seen.push(...body.jobs.map((j) => j.jid));
      cursor = body.cursor;
    } while (cursor !== null);
    expect(seen.sort()).toEqual([...jids].sort());
    const shown = await app.request(`/jobs/${jids[3]}`, { headers: auth });
    expect(((await shown.json()) as { state: string }).state).toBe("dead");

    const browser = await login(app, SECRET);
    const { html } = await browser.get("/dashboard");
    const card = (label: string) => new RegExp(`data-stat="${label}"><b>(?:<a [^>]+>)?([\\d,]+)`).exec(html)?.[1];
    expect([card("dead"), card("waiting")]).toEqual(["5", "4"]);
    const page = await browser.get("/dashboard/dead");
    for (const jid of jids) expect(page.html).toContain(jid);
    const out = await browser.post("/dashboard/logout", { _csrf: await browser.token() });
    expect(out.status).toBe(303);
    expect((await browser.get("/dashboard")).status).not.toBe(200);
  });
});
