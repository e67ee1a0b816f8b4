// The dashboard's Workflows pages: runs by status per declared workflow (and
// on the overview, over all of them), the
// newest runs (or one status's), and a run's page with its steps in order,
// attempts, results and errors — a waiting step's event, match and timeout,
// a failed step's next try and stack, durations, times as on job pages; a run
// id with no run is a 404 page. Cancel
// (POST .../cancel, with the CSRF token) cancels a live run and says so; a run
// that has ended stays as it was, and the notice says what it had become.
// Retry (a failed or cancelled run) resumes it; Fork (on each step) starts a
// new run from that step; the page shows the run's version.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { dashboard } from "../../../src/dashboard/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { login } from "./login.js";

const SECRET = "workflows-dash-s3cret";
/** The ?done= notice an action's redirect carries. */
const notice = (res: Response) => new URL(res.headers.get("location") ?? "", "http://x").searchParams.get("done");

describe.each(adapterCases)("the dashboard's Workflows pages over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "dash-wf");

  it("shows counts, runs and a run's steps", async () => {
    const tickq = h.make(
      {},
      {
        workflows: {
          signup: {
            retry: 0,
            run: async (input: { user: string }, step) => {
              await step.run("create", () => ({ user: input.user }));
              await step.run("charge", () => {
                throw new Error("card <declined>");
              });
            },
          },
        },
      },
    );
    const app = createApp({ tickq, secrets: [SECRET], dashboard: dashboard() });
    const browser = await login(app, SECRET);
    await tickq.workflows.start("signup", { user: "ann" }, { id: "run-1" });
    await tickq.tick({ budgetMs: 1_000 });

    const list = await browser.get("/dashboard/workflows");
    expect(list.status).toBe(200);
    expect(list.html).toMatch(/<td>signup<\/td><td>0<\/td><td>0<\/td><td>0<\/td><td>0<\/td><td>1<\/td><td>0<\/td>/);
    expect(list.html).toContain('href="/dashboard/workflows/run-1">run-1</a></td><td>signup</td><td>failed</td>');
    expect((await browser.get("/dashboard/workflows?status=completed")).html).toContain("No runs.");
    const overview = (await browser.get("/dashboard")).html;
    expect(overview).toContain(
      '<div class="card" data-runs="failed"><b><a href="/dashboard/workflows?status=failed">1</a></b><span>failed</span></div>',
    );
    expect(overview).toContain('data-runs="completed"><b><a href="/dashboard/workflows?status=completed">0</a>');

    const run = await browser.get("/dashboard/workflows/run-1");
    expect(run.html).toContain("<dd>failed</dd>");
    expect(run.html).toContain("card &lt;declined&gt; (step charge)");
    expect(run.html).toMatch(/<td>create<\/td><td>completed<\/td><td>1<\/td>.*\{&quot;user&quot;:&quot;ann&quot;\}/s);
    expect((await browser.get("/dashboard/workflows/none")).status).toBe(404);
  });

  it("a run's page shows what a waiting step waits for, a retrying step's next try and stack, and durations", async () => {
    const tickq = h.make(
      {},
      {
        workflows: {
          onboard: {
            run: async (input: { user: string }, step) => {
              await step.run("create", () => 1);
              return step.waitForEvent("paid", { event: "invoice.paid", match: input.user, timeout: "1h" });
            },
          },
          charge: {
            retry: 2,
            backoff: () => 60_000,
            run: async (_: null, step) =>
              step.run("pay", () => {
                throw new Error("gateway <down>");
              }),
          },
        },
      },
    );
    const app = createApp({ tickq, secrets: [SECRET], dashboard: dashboard() });
    const browser = await login(app, SECRET);
    await tickq.workflows.start("onboard", { user: "ann" }, { id: "w-1" });
    await tickq.workflows.start("charge", null, { id: "c-1" });
    await tickq.tick({ budgetMs: 2_000 });

    const waiting = await tickq.workflows.get("w-1");
    expect(waiting?.steps[1]).toMatchObject({ name: "paid", status: "waiting", event: "invoice.paid", match: "ann" });
    const page = (await browser.get("/dashboard/workflows/w-1")).html;
    expect(page).toContain("event <code>invoice.paid</code> match <code>&quot;ann&quot;</code>, timeout <time");
    expect(page).toMatch(/<td>paid<\/td><td>waiting<\/td><td>0<\/td><td><\/td><td><\/td><td><\/td>/);
    expect(page).toMatch(
      /<td>create<\/td><td>completed<\/td><td>1<\/td><td><time [^>]+>[^<]+<\/time> <span class="muted">\d+ s ago<\/span><\/td>.*<td>\d+ ms<\/td>/s,
    );

    const retrying = await tickq.workflows.get("c-1");
    const pay = retrying?.steps[0];
    expect(pay).toMatchObject({ name: "pay", status: "failed", attempts: 1 });
    expect((pay?.nextTryAt ?? 0) - (pay?.endedAt ?? 0)).toBeGreaterThanOrEqual(59_000);
    expect(pay?.error?.stack).toContain("gateway <down>");
    const charge = (await browser.get("/dashboard/workflows/c-1")).html;
    expect(charge).toContain("Error: gateway &lt;down&gt;</span><br>next try <time");
    expect(charge).toMatch(/next try <time [^>]+>[^<]+<\/time> <span class="muted">in \d+ s<\/span>/);
    expect(charge).toMatch(/<pre class="backtrace">Error: gateway &lt;down&gt;\n\s+at /);
  });

  it("cancels a live run from its page, and leaves an ended one as it was", async () => {
    const tickq = h.make(
      {},
      {
        workflows: {
          nap: { run: async (_: null, step) => step.sleep("nap", "1h") },
          quick: { run: async () => 1 },
        },
      },
    );
    const app = createApp({ tickq, secrets: [SECRET], dashboard: dashboard() });
    const browser = await login(app, SECRET);
    await tickq.workflows.start("nap", null, { id: "nap-1" });
    await tickq.workflows.start("quick", null, { id: "quick-1" });
    await tickq.tick({ budgetMs: 1_000 });
    expect((await browser.get("/dashboard/workflows/nap-1")).html).toContain(
      'action="/dashboard/workflows/nap-1/cancel"',
    );
    expect((await browser.get("/dashboard/workflows/quick-1")).html).not.toContain("quick-1/cancel");

    const token = await browser.token("/dashboard/workflows/nap-1");
    const back = "/dashboard/workflows/nap-1";
    const cancelled = await browser.post("/dashboard/workflows/nap-1/cancel", { _csrf: token, back });
    expect(cancelled.status).toBe(303);
    expect(notice(cancelled)).toBe("Run nap-1 cancelled: no further step starts.");
    expect((await tickq.workflows.get("nap-1"))?.status).toBe("cancelled");

    const ended = await browser.post("/dashboard/workflows/quick-1/cancel", { _csrf: token, back });
    expect(notice(ended)).toBe("Run quick-1 had already completed.");
    expect((await tickq.workflows.get("quick-1"))?.status).toBe("completed");
  });

  it("retries a cancelled run and forks a run from a step, from the run's page", async () => {
    const tickq = h.make(
      {},
      {
        workflows: {
          nap: {
            run: async (_: null, step) => {
              await step.run("first", () => 1);
              await step.sleep("nap", "1h");
            },
          },
        },
      },
    );
    const app = createApp({ tickq, secrets: [SECRET], dashboard: dashboard() });
    const browser = await login(app, SECRET);
    await tickq.workflows.start("nap", null, { id: "nap-1" });
    await tickq.tick({ budgetMs: 1_000 });
    const live = (await browser.get("/dashboard/workflows/nap-1")).html;
    expect(live).not.toContain("nap-1/retry");
    expect(live).toContain('action="/dashboard/workflows/nap-1/fork"');
    expect(live).toMatch(/<dt>version<\/dt><dd>1<\/dd>/);
    const token = await browser.token("/dashboard/workflows/nap-1");
    const back = "/dashboard/workflows/nap-1";
    const forked = await browser.post("/dashboard/workflows/nap-1/fork", { _csrf: token, back, fromStep: "nap" });
    expect(forked.status).toBe(303);
    const started = /^Run (\S+) started from step nap of run nap-1\.$/.exec(notice(forked) ?? "");
    expect(started).not.toBeNull();
    expect((await tickq.workflows.get(started![1]!))?.steps.map((s) => [s.name, s.status])).toEqual([
      ["first", "completed"],
    ]);

    await tickq.workflows.cancel("nap-1");
    expect((await browser.get("/dashboard/workflows/nap-1")).html).toContain(
      'action="/dashboard/workflows/nap-1/retry"',
    );
    const retried = await browser.post("/dashboard/workflows/nap-1/retry", { _csrf: token, back });
    expect(retried.status).toBe(303);
    expect(notice(retried)).toBe("Run nap-1 resumed at the step that ended it.");
    expect((await tickq.workflows.get("nap-1"))?.status).toBe("running");
  });
});
