// GET /metrics: Prometheus' text exposition format 0.0.4 (src/stats/exposition.ts).
// A scraper's secret (TICKQ_METRICS_SECRET) opens this route and no other.
import { Hono } from "hono/tiny";
import type { JobRegistry, Tickq } from "../../index.js";

export function metricsRoutes(tickq: Tickq<JobRegistry>): Hono {
  const app = new Hono();
  app.get("/metrics", async (c) =>
    c.body(await tickq.metrics.prometheus(), 200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" }),
  );
  return app;
}
