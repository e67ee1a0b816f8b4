// A stored job is written by any client of the Redis, Sidekiq included: a
// field of the wrong type (an object where a string or number belongs) must
// show as malformed, and every page that lists or shows the job still renders;
// a recurring job whose stored spec is no JSON is listed with its text.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { dashboard } from "../../../src/dashboard/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { login } from "../dashboard/login.js";

const SECRET = "malformed-job-secret-0123";

const hostile = (jid: string) =>
  JSON.stringify({
    class: "ok",
    queue: "default",
    jid,
    args: [{ toString: 1 }, "<script>alert(1)</script>"],
    retry: true,
    created_at: { toString: 1 },
    enqueued_at: "yesterday",
    failed_at: [],
    retry_count: {},
    error_class: { toString: 1 },
    error_message: { valueOf: 1, toString: 1 },
    error_backtrace: [{ toString: 1 }, "line 2"],
  });

describe.each(adapterCases)("the dashboard with malformed stored jobs over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "dash-malformed");

  it("lists and shows a job whose fields have the wrong types, marked malformed", async () => {
    const tickq = h.make({ ok: () => {} });
    const app = createApp({ tickq, secrets: [SECRET], dashboard: dashboard() });
    const browser = await login(app, SECRET);
    const now = Date.now() / 1000;
    await h.redis.zadd(`${h.prefix}dead`, now, hostile("bad-dead"));
    await h.redis.zadd(`${h.prefix}retry`, now + 60, hostile("bad-retry"));
    await h.redis.zadd(`${h.prefix}schedule`, now + 60, hostile("bad-scheduled"));
    await h.redis.zadd(
      `${h.prefix}dead`,
      now,
      JSON.stringify({ class: { toString: 1 }, queue: "default", jid: { toString: 1 }, args: [], retry: true }),
    );
    await h.redis.zadd(`${h.prefix}dead`, now, "not json at all {");
    await h.redis.lpush(`${h.prefix}queue:default`, hostile("bad-queued"));
    await h.redis.sadd(`${h.prefix}queues`, "default");

    for (const path of [
      "/dashboard/dead",
      "/dashboard/retry",
      "/dashboard/scheduled",
      "/dashboard/queues/default",
      "/dashboard",
    ]) {
      const res = await browser.get(path);
      expect(res.status, path).toBe(200);
      expect(res.html, path).not.toContain("<script>alert(1)");
    }
    const dead = await browser.get("/dashboard/dead");
    expect(dead.html).toContain("bad-dead");
    expect(dead.html).toMatch(/class="malformed"[^>]*>malformed: \{&quot;toString&quot;:1\}/);

    const job = await browser.get("/dashboard/jobs/bad-dead");
    expect(job.status).toBe(200);
    expect(job.html).toContain("Job bad-dead");
    expect(job.html).toMatch(/<dt>retries<\/dt><dd><span class="malformed"[^>]*>malformed: \{\}<\/span>/);
    expect(job.html).toMatch(/<dt>created<\/dt><dd><span class="malformed"/);
    expect(job.html).toMatch(/<dt>error<\/dt><dd class="err"><span class="malformed"/);
    expect(job.html).toContain("line 2");
    expect(job.html).not.toContain("<script>alert(1)");
  });

  it("lists a recurring job whose stored spec is no JSON, showing its text", async () => {
    const tickq = h.make({ ok: () => {} });
    const app = createApp({ tickq, secrets: [SECRET], dashboard: dashboard() });
    const browser = await login(app, SECRET);
    await h.redis.hset(
      `${h.prefix}schedules:spec`,
      "odd",
      "{not json",
      "fine",
      JSON.stringify({ cron: "0 3 * * *", job: "ok" }),
    );
    const res = await browser.get("/dashboard/schedules");
    expect(res.status).toBe(200);
    expect(res.html).toContain("&quot;{not json&quot;");
    expect(res.html).toContain("0 3 * * *");
  });
});
