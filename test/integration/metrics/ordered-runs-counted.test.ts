// Ordered jobs are in the metrics as plain jobs are: their runs, failures and
// run times per name (metrics.query().jobs, tickq_job_* on /metrics, the
// Metrics page), and their waits from due to start per ordered name
// (metrics.query().ordered, tickq_ordered_wait_seconds, the page's ordered
// table) — counted by the ordered acks a tick already sends, and equal to
// what stats() counts as processed and failed.
import { describe, expect, it } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import { createApp } from "../../../src/http/app.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { parseScrape } from "../../helpers/prometheus.js";
import { login } from "../dashboard/login.js";

const SECRET = "ordered-metrics-s3cret";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(adapterCases)("ordered runs in the metrics over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-metrics");

  it("counts runs, failures, run times and waits of ordered ids, in query(), /metrics and the Metrics page", async () => {
    let flakyRuns = 0;
    const tickq = h.make(
      { plain: () => {} },
      {
        ordered: {
          idx: { perform: async () => sleep(30) },
          flaky: {
            retry: 1,
            backoff: () => 0,
            perform: () => {
              if (++flakyRuns === 1) throw new Error("first run fails");
            },
          },
          doomed: {
            retry: false,
            perform: () => {
              throw new Error("always");
            },
          },
        },
      },
    );
    const since = Date.now() - 60_000;
    for (const id of ["a", "b", "c"]) await tickq.enqueueOrdered("idx", { id, payload: { id } });
    await tickq.enqueueOrdered("flaky", { id: "x", payload: 1 });
    await tickq.enqueueOrdered("doomed", { id: "y", payload: 1 });
    await tickq.enqueue("plain", []);
    await sleep(50); // every id has waited ≥ 50 ms when the tick starts it
    await tickq.tick();
    await tickq.tick(); // flaky's retry, due at once
    expect(flakyRuns).toBe(2);

    const stats = await tickq.stats();
    const query = await tickq.metrics.query({ sinceMs: since });
    const runs = Object.fromEntries(query.jobs.map((j) => [j.name, [j.total.runs, j.total.failures]]));
    expect(runs).toEqual({ idx: [3, 0], flaky: [2, 1], doomed: [1, 1], plain: [1, 0] });
    // The counts of runs equal stats(), which counts ordered runs as processed.
    expect(stats.processed).toBe(7);
    expect(stats.failed).toBe(2);
    const idx = query.jobs.find((j) => j.name === "idx")!;
    expect(idx.total.durationMsSum).toBeGreaterThanOrEqual(3 * 29);
    expect(idx.total.buckets.slice(0, 3)).toEqual([0, 0, 0]); // none ran under 25 ms
    const waits = Object.fromEntries(query.ordered.map((o) => [o.name, o.total.waits]));
    expect(waits).toEqual({ doomed: 1, flaky: 2, idx: 3 });
    const idxWaits = query.ordered.find((o) => o.name === "idx")!.total;
    expect(idxWaits.waitMsSum).toBeGreaterThanOrEqual(3 * 45);
    expect(idxWaits.p50).toBeGreaterThan(25);
    // name filters the ordered waits as it does the runs.
    const one = await tickq.metrics.query({ sinceMs: since, name: "flaky" });
    expect([one.jobs.map((j) => j.name), one.ordered.map((o) => o.name)]).toEqual([["flaky"], ["flaky"]]);

    const app = createApp({ tickq, secrets: [SECRET], dashboard: dashboard() });
    const res = await app.request("/metrics", { headers: { Authorization: `Bearer ${SECRET}` } });
    const parsed = parseScrape(await res.text());
    expect(parsed.value("tickq_processed_total")).toBe(stats.processed);
    for (const j of query.jobs) {
      expect(parsed.value("tickq_job_runs_total", { name: j.name })).toBe(j.total.runs);
      expect(parsed.value("tickq_job_failures_total", { name: j.name })).toBe(j.total.failures);
      expect(parsed.histogram("tickq_job_duration_seconds", { name: j.name })!.count).toBe(j.total.runs);
    }
    expect(parsed.value("tickq_job_runs_total", { name: "(other)" })).toBeUndefined();
    expect(parsed.value("tickq_job_retried_total", { name: "flaky" })).toBe(1);
    expect(parsed.value("tickq_job_dead_total", { name: "doomed" })).toBe(1);
    for (const o of query.ordered) {
      const histogram = parsed.histogram("tickq_ordered_wait_seconds", { name: o.name })!;
      expect(histogram).toMatchObject({ count: o.total.waits, sum: o.total.waitMsSum / 1000 });
    }

    const browser = await login(app, SECRET);
    const { html } = await browser.get("/dashboard/metrics?hours=1");
    expect(html).toContain('<section data-name="idx">');
    expect(html).toMatch(/<tr data-ordered="idx"><td>idx<\/td><td data-waits="3">/);
  });

  it("metrics: false counts no ordered run", async () => {
    const tickq = h.make({}, { metrics: false, ordered: { idx: { perform: () => {} } } });
    await tickq.enqueueOrdered("idx", { id: "a", payload: 1 });
    await tickq.tick();
    expect((await tickq.stats()).processed).toBe(1);
    expect(await h.redis.keys(`${h.prefix}metrics:*`)).toEqual([]);
  });
});
