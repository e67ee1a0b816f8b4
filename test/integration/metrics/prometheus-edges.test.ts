// GET /metrics on the edge entries: the example Worker in Miniflare and the
// Vercel function, over HTTP Redis (the local Upstash-compatible server),
// opened by TICKQ_METRICS_SECRET, read by a parser of the format, its
// counters equal to GET /stats.
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tickqVercel } from "../../../src/platforms/vercel/handler.js";
import { adapterCase, testEndpoints } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { parseScrape } from "../../helpers/prometheus.js";
import { deleteUnder, directRedis, uniquePrefix } from "../../helpers/redis.js";
import { workerBundle } from "../../helpers/worker-bundle.js";

const ADMIN = "edge-admin-secret-for-tests";
const SCRAPE = "edge-scrape-secret-for-tests";

describe("GET /metrics in the Worker (Miniflare)", () => {
  const redis = directRedis();
  const prefix = uniquePrefix("worker-metrics");
  let mf: Miniflare;

  beforeAll(async () => {
    const { restUrl, restToken } = testEndpoints();
    mf = new Miniflare({
      modules: true,
      script: await workerBundle(),
      compatibilityDate: "2025-09-01",
      bindings: {
        UPSTASH_REDIS_REST_URL: restUrl,
        UPSTASH_REDIS_REST_TOKEN: restToken,
        TICKQ_SECRET: ADMIN,
        TICKQ_METRICS_SECRET: SCRAPE,
        TICKQ_PREFIX: prefix,
      },
    });
    await mf.ready;
  }, 60_000);

  afterAll(async () => {
    await mf?.dispose();
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  const call = (path: string, token: string, init: { method?: string; body?: unknown } = {}) =>
    mf.dispatchFetch(`http://worker.test${path}`, {
      method: init.method ?? "GET",
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      headers: { Authorization: `Bearer ${token}` },
    });

  it("serves the counters and histograms GET /stats agrees with", async () => {
    const enqueued = await call("/jobs", ADMIN, {
      method: "POST",
      body: [
        { name: "sendWelcomeEmail", args: ["a@b.c"] },
        { name: "sendWelcomeEmail", args: ["d@e.f"] },
      ],
    });
    expect(enqueued.status).toBe(201);
    expect(await (await call("/tick", ADMIN, { method: "POST" })).json()).toMatchObject({ succeeded: 2 });
    const res = await call("/metrics", SCRAPE);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const scrape = parseScrape(await res.text());
    const stats = (await (await call("/stats", ADMIN)).json()) as { processed: number; failed: number };
    expect(scrape.value("tickq_processed_total")).toBe(stats.processed);
    expect(stats.processed).toBe(2);
    expect(scrape.value("tickq_job_runs_total", { name: "sendWelcomeEmail" })).toBe(2);
    expect(scrape.histogram("tickq_job_duration_seconds", { name: "sendWelcomeEmail" })).toMatchObject({ count: 2 });
    expect(scrape.histogram("tickq_queue_wait_seconds", { queue: "default" })).toMatchObject({ count: 2 });
    expect((await call("/stats", SCRAPE)).status).toBe(403);
  });
});

describe("GET /api/metrics in the Vercel function", () => {
  const h = useHarness(adapterCase("upstash"), "vercel-metrics");

  it("serves the scrape to TICKQ_METRICS_SECRET and nothing else to it", async () => {
    const { restUrl, restToken } = testEndpoints();
    const handler = tickqVercel({
      jobs: { greet: (_args: [string]) => {} },
      env: {
        UPSTASH_REDIS_REST_URL: restUrl,
        UPSTASH_REDIS_REST_TOKEN: restToken,
        TICKQ_SECRET: ADMIN,
        TICKQ_METRICS_SECRET: SCRAPE,
        TICKQ_PREFIX: h.prefix,
      },
    });
    const req = (path: string, token: string, init: RequestInit = {}) =>
      new Request(`https://example.vercel.app${path}`, { ...init, headers: { Authorization: `Bearer ${token}` } });
    await handler.POST(
      req("/api/jobs", ADMIN, { method: "POST", body: JSON.stringify({ name: "greet", args: ["x"] }) }),
    );
    expect((await handler.POST(req("/api/tick", ADMIN, { method: "POST" }))).status).toBe(200);
    const res = await handler.GET(req("/api/metrics", SCRAPE));
    expect(res.status).toBe(200);
    const scrape = parseScrape(await res.text());
    expect(scrape.value("tickq_job_runs_total", { name: "greet" })).toBe(1);
    expect(scrape.value("tickq_processed_total")).toBe(1);
    const refused = await handler.GET(req("/api/jobs?state=dead", SCRAPE));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: "METRICS_ONLY" });
  });
});
