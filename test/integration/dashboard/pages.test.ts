// Every dashboard page rendered over both adapters, from jobs in every
// state: what each shows (counts, errors and backtraces, leases, schedules),
// search by job name, pagination, and the actions' effects on Redis.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { dashboard } from "../../../src/dashboard/index.js";
import * as protocol from "../../../src/protocol/index.js";
import { scriptSha } from "../../../src/redis/script-sha.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { login } from "./login.js";

const SECRET = "pages-s3cret-for-tests";
const fail = () => {
  throw new TypeError("card declined");
};

describe.each(adapterCases)("the dashboard's pages over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "dash-pages");
  const setup = async () => {
    const tickq = h.make(
      { ok: () => {}, charge: { retry: false, perform: fail }, flaky: { retry: 3, perform: fail } },
      { schedules: { nightly: { cron: "0 3 * * *", job: "ok", args: [] } }, queues: ["default", "mail"] },
    );
    const app = createApp({ tickq, secrets: [SECRET], dashboard: dashboard() });
    return { tickq, app, browser: await login(app, SECRET) };
  };

  it("overview: the counts of stats(), the queues, the chart, and a live part that is stats() alone", async () => {
    const { tickq, browser } = await setup();
    await tickq.enqueueBulk([
      { name: "charge", args: [1] },
      { name: "flaky", args: [2] },
      { name: "ok", args: [3] },
    ]);
    await tickq.tick();
    await tickq.enqueue("ok", [4], { queue: "mail" });
    await tickq.enqueue("ok", [5], { delayMs: 60_000 });
    await tickq.queues.pause("mail");
    const stats = await tickq.stats();
    const { html } = await browser.get("/dashboard");
    const card = (label: string) => new RegExp(`data-stat="${label}"><b>(?:<a [^>]+>)?([\\d,]+)`).exec(html)?.[1];
    expect(card("processed")).toBe(String(stats.processed));
    expect(card("failed")).toBe(String(stats.failed));
    expect([card("scheduled"), card("retry"), card("dead"), card("waiting")]).toEqual([
      String(stats.scheduled),
      String(stats.retry),
      String(stats.dead),
      "1",
    ]);
    expect([stats.processed, stats.failed, stats.scheduled, stats.retry, stats.dead]).toEqual([3, 2, 1, 1, 1]);
    expect(html).toMatch(/queues\/mail">mail<\/a> <span class="tag">paused<\/span>/);
    expect(html).toContain("<svg");
    expect(html).toMatch(/<title>\d{4}-\d\d-\d\d: 3 processed, 2 of them failed<\/title>/);
    expect(html).toContain('data-src="/dashboard/overview"');
    const live = await browser.get("/dashboard/overview");
    expect(live.html).toContain('data-stat="dead"');
    // the last hour's throughput is live; the daily chart is not
    expect(live.html).toContain('id="throughput"');
    expect(live.html).not.toContain("processed, 2 of them failed</title>");
    expect(live.html).not.toContain("<html");
  });

  it("overview: names a job that no tick running can start, on the page and in its live part", async () => {
    const tickq = h.make({ report: { timeoutMs: 4_000, perform: () => {} } });
    const browser = await login(createApp({ tickq, secrets: [SECRET], dashboard: dashboard() }), SECRET);
    await tickq.enqueue("report", []);
    await tickq.tick({ budgetMs: 900 });
    const alert =
      /<p class="warn" role="alert">1 job\(s\) of &quot;report&quot; in queue &quot;default&quot; cannot start: its timeoutMs 4000 is above the budget/;
    expect((await browser.get("/dashboard")).html).toMatch(alert);
    expect((await browser.get("/dashboard/overview")).html).toMatch(alert);
  });

  it("refreshes the overview with three script calls: the session check (session.lua), stats.lua and the last hour's metrics, nothing else", async () => {
    const calls: string[] = [];
    const counting = {
      evalsha: (sha: string, keys: string[], args: string[]) => (calls.push(sha), h.adapter.evalsha(sha, keys, args)),
      eval: (script: string, keys: string[], args: string[]) => (
        calls.push("eval"), h.adapter.eval(script, keys, args)
      ),
    };
    const tickq = h.make({ ok: () => {} }, { redis: counting });
    const app = createApp({ tickq, secrets: [SECRET], dashboard: dashboard() });
    const browser = await login(app, SECRET);
    await browser.get("/dashboard/overview"); // Redis has both scripts cached now: a fresh Redis would answer NOSCRIPT, then EVAL, once
    calls.length = 0;
    expect((await browser.get("/dashboard/overview")).status).toBe(200);
    expect(calls).toEqual([
      await scriptSha(protocol.session.script),
      await scriptSha(protocol.stats.script),
      await scriptSha(protocol.metrics.script),
    ]);
  });

  it("dead and retry: the error, a backtrace on the job's page, retry and delete, one or all", async () => {
    const { tickq, browser } = await setup();
    const [dead1, dead2, dead3] = await tickq.enqueueBulk(
      [1, 2, 3].map((n) => ({ name: "charge" as const, args: [n] })),
    );
    await tickq.enqueue("flaky", [9]);
    await tickq.tick();
    const list = await browser.get("/dashboard/dead");
    expect(list.html).toContain("TypeError: card declined");
    expect(list.html.match(/<tr data-jid=/g)).toHaveLength(3);
    expect((await browser.get("/dashboard/retry")).html).toMatch(/flaky[\s\S]*TypeError: card declined/);

    const job = await browser.get(`/dashboard/jobs/${dead1}`);
    expect(job.html).toContain('data-state="dead"');
    expect(job.html).toMatch(/<pre class="backtrace">[^<]*pages\.test\.ts/);
    const token = await browser.token(`/dashboard/jobs/${dead1}`);
    const retried = await browser.post(`/dashboard/jobs/${dead1}/retry`, {
      _csrf: token,
      back: `/dashboard/jobs/${dead1}`,
    });
    expect(retried.headers.get("location")).toMatch(
      new RegExp(`^/dashboard/jobs/${dead1}\\?done=Job\\+${dead1}\\+is\\+back`),
    );
    expect((await tickq.jobs.find(dead1!))?.state).toBe("queued");
    expect((await browser.post(`/dashboard/jobs/${dead2}/delete`, { _csrf: token })).status).toBe(303);
    expect(await tickq.jobs.find(dead2!)).toBeNull();
    const gone = await browser.get(`/dashboard/jobs/${dead2}`);
    expect(gone.status).toBe(404);
    expect(gone.html).toContain("ran and succeeded, was deleted, or never existed");
    // a job no longer where the form saw it: a 409/404 page, not a crash
    expect((await browser.post(`/dashboard/jobs/${dead2}/retry`, { _csrf: token })).status).toBe(404);

    expect((await browser.post("/dashboard/retry/retry-all", { _csrf: token })).headers.get("location")).toMatch(
      /done=1\+job/,
    );
    expect((await browser.post("/dashboard/dead/delete-all", { _csrf: token })).headers.get("location")).toMatch(
      /done=1\+job/,
    );
    expect(await tickq.jobs.find(dead3!)).toBeNull();
  });

  it("search by job name and pages of 25 with the cursor", async () => {
    const { tickq, browser } = await setup();
    await tickq.enqueueBulk(
      Array.from({ length: 30 }, (_, n) => ({ name: "ok" as const, args: [n], delayMs: 60_000 + n })),
    );
    await tickq.enqueue("charge", [0], { delayMs: 60_000 });
    const first = await browser.get("/dashboard/scheduled");
    expect(first.html.match(/<tr data-jid=/g)).toHaveLength(25);
    const next = /rel="next" href="([^"]+)"/.exec(first.html)![1]!.replace(/&amp;/g, "&");
    const second = await browser.get(next);
    expect(second.html.match(/<tr data-jid=/g)).toHaveLength(6);
    expect(second.html).not.toContain('rel="next"');
    expect(second.html).toContain("« First page");
    const search = await browser.get("/dashboard/scheduled?name=charge");
    expect(search.html.match(/<tr data-jid=/g)).toHaveLength(1);
    expect(search.html).toContain("Retry all named charge");
    const token = await browser.token("/dashboard/scheduled");
    await browser.post("/dashboard/scheduled/delete-all", { _csrf: token, name: "charge" });
    expect((await tickq.stats()).scheduled).toBe(30);
    const bad = await browser.get("/dashboard/scheduled?cursor=nonsense");
    expect(bad.status).toBe(400);
    expect(bad.html).toContain("cursor");
    expect((await browser.get("/dashboard/scheduled?name=has%20space")).status).toBe(400);
  });

  it("escapes what it echoes: a searched name cannot break out of the page or its confirm question", async () => {
    const { browser } = await setup();
    const name = `x');alert(1);//"><script>alert(2)</script>`;
    const { status, html } = await browser.get(`/dashboard/dead?name=${encodeURIComponent(name)}`);
    expect(status).toBe(200);
    expect(html).not.toContain("<script>alert");
    const questions = [...html.matchAll(/data-confirm="([^"]*)"/g)].map((m) =>
      m[1]!
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&amp;/g, "&"),
    );
    expect(questions).toEqual([`Retry every dead job named ${name}?`, `Delete every dead job named ${name}?`]);
    expect(html).not.toMatch(/ on[a-z]+=/);
    expect(html).toContain(`value="x&#39;);alert(1);//&quot;&gt;&lt;script&gt;`);
  });

  it("lists args with a bidi override or a C1 control as visible escapes, so a row cannot reverse what it shows", async () => {
    const { tickq, browser } = await setup();
    const jid = await tickq.enqueue("charge", ["\u202eevil\u009b"]);
    await tickq.tick();
    const { html } = await browser.get("/dashboard/dead");
    const row = new RegExp(`<tr data-jid="${jid}">.*?</tr>`, "s").exec(html)?.[0] ?? "";
    expect(row).toContain("<code>[&quot;\\u202eevil\\u009b&quot;]</code>");
    expect(row).not.toMatch(/[\u202e\u009b]/);
  });

  it("shows a job whose time is out of Date's range (inf or 1e300, written by another client) and the rest of its page", async () => {
    const { browser } = await setup();
    const job = (jid: string, more: object = {}) =>
      JSON.stringify({ class: "ok", args: [], jid, queue: "default", ...more });
    // Straight into Redis, as a Sidekiq client or a script could: tickq itself never writes such a time.
    await h.redis.zadd(
      `${h.prefix}dead`,
      "inf",
      job("far-dead"),
      1,
      job("born-late", { created_at: 1e300, failed_at: -1e20 }),
    );
    await h.redis.zadd(`${h.prefix}schedule`, "1e300", job("far-due"), 2, job("due-soon"));
    const dead = await browser.get("/dashboard/dead");
    expect(dead.status).toBe(200);
    expect(dead.html).toContain('data-jid="far-dead"');
    expect(dead.html).toContain('data-jid="born-late"');
    const scheduled = await browser.get("/dashboard/scheduled");
    expect(scheduled.status).toBe(200);
    expect(scheduled.html).toContain('data-jid="due-soon"');
    for (const jid of ["far-dead", "born-late", "far-due"]) {
      const page = await browser.get(`/dashboard/jobs/${jid}`);
      expect(page.status, jid).toBe(200);
      expect(page.html, jid).toContain("not a date");
    }
  });

  it("queues: sizes, a queue's jobs next first, pause and resume", async () => {
    const { tickq, browser } = await setup();
    const jids = await tickq.enqueueBulk([
      { name: "ok", args: [1] },
      { name: "ok", args: [2] },
    ]);
    const queues = await browser.get("/dashboard/queues");
    expect(queues.html).toMatch(/queues\/default">default<\/a><\/td><td>2<\/td>/);
    const queue = await browser.get("/dashboard/queues/default");
    expect(queue.html.indexOf(jids[0]!)).toBeLessThan(queue.html.indexOf(jids[1]!));
    expect(queue.html).toContain(">next<");
    await browser.post("/dashboard/queues/default/pause", { _csrf: await browser.token("/dashboard/queues") });
    expect((await tickq.queues.list()).find((q) => q.name === "default")?.paused).toBe(true);
    expect((await browser.get("/dashboard/queues/default")).html).toContain(">Resume</button>");
  });

  it("in flight and ticks: a running tick with its lease and jobs; recurring schedules; ordered", async () => {
    const { tickq, browser } = await setup();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const slow = h.make(
      {
        wait: async () => {
          started();
          await held;
        },
      },
      { queues: ["default", "mail"] },
    );
    const jid = await slow.enqueue("wait", []);
    const tick = slow.tick({ budgetMs: 20_000 });
    await running;
    const ticks = await browser.get("/dashboard/ticks");
    expect(ticks.html).toMatch(
      /<td>[\d,]+ ms<\/td><td>[\d,]+ ms<\/td><td>default, mail<\/td><td><a href="\/dashboard\/running">1<\/a>/,
    );
    expect((await browser.get("/dashboard/running")).html).toContain(jid);
    release();
    await tick;
    expect((await browser.get("/dashboard/ticks")).html).toContain("No tick is running now.");

    await tickq.tick(); // syncs the declared schedule
    const schedules = await browser.get("/dashboard/schedules");
    expect(schedules.html).toContain("<td>nightly");
    expect(schedules.html).toContain("0 3 * * *");
    expect((await browser.get("/dashboard/ordered")).html).toContain("No ordered jobs declared");
  });

  it("locks: a while-executing job's lock while it runs, its duplicate waiting, then nothing", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const sync = h.make({
      sync: async () => {
        started();
        await held;
      },
    });
    const browser = await login(createApp({ tickq: sync, secrets: [SECRET], dashboard: dashboard() }), SECRET);
    expect((await browser.get("/dashboard/locks")).html).toContain("No lock is held");
    await sync.enqueue("sync", [1], { unique: "while-executing" });
    await sync.enqueue("sync", [1], { unique: "while-executing" });
    const tick = sync.tick({ budgetMs: 20_000, concurrency: 1 });
    await running;
    const locks = await browser.get("/dashboard/locks");
    expect(locks.html).toMatch(/<td>sync<\/td><td>1<\/td><td>1<\/td><td>0<\/td>/);
    release();
    await tick;
    await sync.tick();
    expect((await browser.get("/dashboard/locks")).html).toContain("No lock is held");
  });
});
