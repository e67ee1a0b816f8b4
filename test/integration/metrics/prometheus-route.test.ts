// GET /metrics serves Prometheus' text format that a real parser of the
// format reads, and its numbers are the ones stats() and metrics.query()
// give: a scraper and the dashboard never disagree. A scraper's secret
// (TICKQ_METRICS_SECRET) opens /metrics and nothing else; the read-only and
// admin secrets open it too.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { BUCKET_BOUNDS_MS } from "../../../src/metrics/buckets.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { parseScrape } from "../../helpers/prometheus.js";

const ADMIN = "admin-secret-for-tests-0";
const READ = "read-secret-for-tests-00";
const SCRAPE = "scrape-secret-for-tests-0";
const boom = () => {
  throw new Error("boom");
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(adapterCases)("GET /metrics over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "prom");
  const setup = () => {
    const tickq = h.make(
      {
        quick: () => {},
        slow: async () => sleep(30),
        fails: { retry: 1, perform: boom },
        once: { retry: false, perform: boom },
      },
      { queues: ["default", "low"] },
    );
    const app = createApp({ tickq, secrets: [ADMIN], readSecrets: [READ], metricsSecrets: [SCRAPE] });
    const scrape = async (secret = SCRAPE) => {
      const res = await app.request("/metrics", { headers: { Authorization: `Bearer ${secret}` } });
      return { res, text: await res.text() };
    };
    return { tickq, app, scrape };
  };

  it("equals stats() and metrics.query(), read by a parser of the format", async () => {
    const { tickq, scrape } = setup();
    await tickq.enqueueBulk([
      ...Array.from({ length: 6 }, () => ({ name: "quick" as const, args: [] })),
      ...Array.from({ length: 3 }, () => ({ name: "slow" as const, args: [], queue: "low" })),
      { name: "fails" as const, args: [] },
      { name: "once" as const, args: [] },
    ]);
    const since = Date.now() - 60_000;
    await tickq.tick();
    await tickq.enqueue("quick", [], { queue: "low" }); // waits: latency > 0
    await sleep(20);

    const { res, text } = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const parsed = parseScrape(text);
    const stats = await tickq.stats();
    const query = await tickq.metrics.query({ sinceMs: since });

    expect(parsed.type("tickq_processed_total")).toBe("COUNTER");
    expect(parsed.value("tickq_processed_total")).toBe(stats.processed);
    expect(parsed.value("tickq_failed_total")).toBe(stats.failed);
    expect(stats.processed).toBe(11);
    expect(parsed.value("tickq_queue_size", { queue: "low" })).toBe(stats.queues.low);
    expect(parsed.value("tickq_retry_jobs")).toBe(stats.retry);
    expect(parsed.value("tickq_dead_jobs")).toBe(stats.dead);
    expect(parsed.value("tickq_scheduled_jobs")).toBe(stats.scheduled);
    expect(parsed.value("tickq_running_jobs")).toBe(stats.running);
    expect(parsed.value("tickq_fetched_waiting_jobs")).toBe(stats.fetchedWaiting);
    expect(parsed.value("tickq_inflight_jobs")).toBe(stats.inflight);
    expect(parsed.value("tickq_live_ticks")).toBe(stats.ticks);
    const low = query.queues.find((q) => q.queue === "low")!;
    expect(low.latencyMs).toBeGreaterThanOrEqual(15);
    expect(parsed.value("tickq_queue_latency_seconds", { queue: "low" })).toBeGreaterThanOrEqual(0.015);

    for (const series of query.jobs) {
      const { name, total } = series;
      expect(parsed.value("tickq_job_runs_total", { name })).toBe(total.runs);
      expect(parsed.value("tickq_job_failures_total", { name })).toBe(total.failures);
      const histogram = parsed.histogram("tickq_job_duration_seconds", { name })!;
      expect(histogram.count).toBe(total.runs);
      expect(histogram.sum).toBeCloseTo(total.durationMsSum / 1000, 6);
      let cumulative = 0;
      BUCKET_BOUNDS_MS.forEach((bound, k) => {
        cumulative += total.buckets[k]!;
        expect(histogram.buckets[String(bound / 1000)]).toBe(cumulative);
      });
      expect(histogram.buckets["+Inf"]).toBe(total.runs);
    }
    expect(query.jobs.map((j) => [j.name, j.total.runs, j.total.failures])).toEqual([
      ["fails", 1, 1],
      ["once", 1, 1],
      ["quick", 6, 0],
      ["slow", 3, 0],
    ]);
    expect(parsed.value("tickq_job_retried_total", { name: "fails" })).toBe(1);
    expect(parsed.value("tickq_job_dead_total", { name: "once" })).toBe(1);
    // slow sleeps 30 ms: every run lands in the (25, 50] bucket or above.
    const slow = parsed.histogram("tickq_job_duration_seconds", { name: "slow" })!;
    expect(slow.buckets["0.025"]).toBe(0);
    // A 30 ms timer may fire up to a millisecond early on the monotonic clock, and run times are whole ms.
    expect(slow.sum).toBeGreaterThanOrEqual(0.087);
    for (const { queue, total } of query.queues) {
      const wait = parsed.histogram("tickq_queue_wait_seconds", { queue });
      if (total.waits === 0) continue;
      expect(wait).toMatchObject({ count: total.waits, sum: total.waitMsSum / 1000 });
      expect(parsed.value("tickq_queue_runs_total", { queue })).toBe(total.waits);
    }
    expect(query.queues.find((q) => q.queue === "default")!.total.waits).toBe(8);
  });

  it('folds job names this tickq does not declare into name="(other)": a scrape stays bounded', async () => {
    const { tickq, scrape } = setup();
    for (const name of ["Ruby::Only", "Another::Unknown"]) {
      const job = {
        class: name,
        args: [],
        jid: `jid-${name}`,
        queue: "default",
        retry: false,
        enqueued_at: Date.now() / 1000,
      };
      await h.redis.sadd(`${h.prefix}queues`, "default");
      await h.redis.lpush(`${h.prefix}queue:default`, JSON.stringify(job));
    }
    await tickq.enqueue("quick", []);
    await tickq.tick();
    const parsed = parseScrape((await scrape()).text);
    expect(parsed.value("tickq_job_runs_total", { name: "(other)" })).toBe(2);
    expect(parsed.value("tickq_job_failures_total", { name: "(other)" })).toBe(2);
    expect(parsed.value("tickq_job_runs_total", { name: "quick" })).toBe(1);
    expect(parsed.value("tickq_job_runs_total", { name: "Ruby::Only" })).toBeUndefined();
    // metrics.query keeps every name: it reads a range, not a scrape.
    const names = (await tickq.metrics.query({ sinceMs: Date.now() - 60_000 })).jobs.map((j) => j.name);
    expect(names).toEqual(["Another::Unknown", "Ruby::Only", "quick"]);
  });

  it("opens to the scraper's, the read-only and the admin secret; the scraper's opens nothing else", async () => {
    const { app, scrape } = setup();
    for (const secret of [SCRAPE, READ, ADMIN]) expect((await scrape(secret)).res.status).toBe(200);
    expect((await scrape("not-a-secret-of-this-app")).res.status).toBe(401);
    expect((await app.request("/metrics")).status).toBe(401);
    for (const [method, path] of [
      ["GET", "/stats"],
      ["GET", "/jobs?state=dead"],
      ["POST", "/tick"],
    ] as const) {
      const res = await app.request(path, { method, headers: { Authorization: `Bearer ${SCRAPE}` } });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ code: "METRICS_ONLY" });
    }
  });
});
