// History lists: expired and cancelled jobs are listed and found by the jobs
// API like succeeded ones: newest first, paged by cursor with no repeat and
// no gap while more end, over HTTP (GET /jobs?state=, POST /jobs with
// expiresInMs) and on the dashboard's Expired and Cancelled pages.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { dashboard } from "../../../src/dashboard/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { login } from "../dashboard/login.js";

const SECRET = "history-lists-s3cret";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(adapterCases)("history lists over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "history");

  /** `n` jobs enqueued with a short expiry, then expired by a tick, one tick each so each has its own time. */
  const expireJobs = async (n: number) => {
    const tq = h.make({ work: () => {} });
    const jids: string[] = [];
    for (let k = 0; k < n; k++) {
      jids.push(await tq.enqueue("work", [k], { expiresInMs: 1, kick: false }));
      await sleep(5);
      await tq.tick({ budgetMs: 1_000 });
    }
    return { tq, jids };
  };

  it("lists expired jobs newest first, paged by cursor, with no repeat and no gap while more expire", async () => {
    const { tq, jids } = await expireJobs(7);
    const seen: string[] = [];
    let page = await tq.jobs.list("expired", { limit: 3 });
    seen.push(...page.jobs.map((j) => j.jid));
    // More expire between pages: they are newer than the cursor, so they never show up in this walk.
    const later = await tq.enqueue("work", ["late"], { expiresInMs: 1, kick: false });
    await sleep(5);
    await tq.tick({ budgetMs: 1_000 });
    while (page.cursor) {
      page = await tq.jobs.list("expired", { limit: 3, cursor: page.cursor });
      seen.push(...page.jobs.map((j) => j.jid));
    }
    expect(seen).toEqual([...jids].reverse());
    expect(page.jobs.every((j) => j.state === "expired" && j.expiresAt! <= j.at!)).toBe(true);
    expect((await tq.jobs.list("expired", { order: "oldest", limit: 1 })).jobs[0]!.jid).toBe(jids[0]);
    expect((await tq.jobs.list("expired", { limit: 1 })).jobs[0]!.jid).toBe(later);
    expect(await tq.jobs.list("expired", { name: "other" })).toEqual({ jobs: [], cursor: null });
  });

  it("lists and finds cancelled jobs from their history record", async () => {
    const tq = h.make({ work: () => {} });
    // A cancelled job's record: its text in `cancelled`, scored by when it was cancelled (as `succeeded` is).
    const nowSec = Date.now() / 1000;
    const text = (jid: string) => JSON.stringify({ class: "work", args: [], jid, queue: "default", retry: true });
    await h.redis.zadd(`${h.prefix}cancelled`, nowSec - 2, text("c1"), nowSec - 1, text("c2"));
    expect((await tq.jobs.list("cancelled")).jobs.map((j) => [j.jid, j.state])).toEqual([
      ["c2", "cancelled"],
      ["c1", "cancelled"],
    ]);
    expect((await tq.jobs.find("c1"))?.state).toBe("cancelled");
    expect(await tq.jobs.result("c1")).toMatchObject({ state: "cancelled" });
    expect(await tq.jobs.deleteAll("cancelled")).toBe(2);
  });

  it("over HTTP: POST /jobs takes expiresInMs, GET /jobs?state=expired lists the job, a bad expiry is a 400", async () => {
    const tickq = h.make({ work: () => {} });
    const app = createApp({ tickq, secrets: [SECRET] });
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await app.request(path, {
        method,
        headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    // Delayed past its expiry: the tick its POST may kick cannot start it.
    const posted = await call("POST", "/jobs", { name: "work", args: [], delayMs: 10, expiresInMs: 1 });
    expect(posted.status).toBe(201);
    await sleep(20);
    await tickq.tick({ budgetMs: 1_000 });
    const listed = await call("GET", "/jobs?state=expired");
    expect(listed.status).toBe(200);
    expect((listed.body.jobs as { jid: string; state: string }[]).map((j) => j.state)).toEqual(["expired"]);
    const bad = await call("POST", "/jobs", { name: "work", args: [], expiresInMs: -1 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/expiresInMs/);
  });

  it("the dashboard lists expired jobs on its Expired page and shows a job's expiry", async () => {
    const { tq, jids } = await expireJobs(1);
    const app = createApp({ tickq: tq, secrets: [SECRET], dashboard: dashboard() });
    const browser = await login(app, SECRET);
    const list = await browser.get("/dashboard/expired");
    expect(list.status).toBe(200);
    expect(list.html).toContain(`data-jid="${jids[0]}"`);
    expect(list.html).toContain(">Expired</a>");
    expect((await browser.get("/dashboard/cancelled")).status).toBe(200);
    const one = await browser.get(`/dashboard/jobs/${jids[0]}`);
    expect(one.html).toMatch(/<dt>expired<\/dt>/);
    expect(one.html).toMatch(/<dt>expires<\/dt>/);
  });
});
