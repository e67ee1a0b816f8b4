// GET /metrics on the Node server (startServer, what `npm start` and `tickq
// serve` run), over real HTTP: opened by its metrics secret and by nothing
// else of it, read by a parser of the format, its values those of stats()
// and metrics.query() — ordered jobs and a prioritized queue's latency too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../../src/platforms/node/server.js";
import { deleteUnder, directRedis, redisUrl, uniquePrefix } from "../../helpers/redis.js";
import { parseScrape } from "../../helpers/prometheus.js";

const SECRET = "node-admin-s3cret-for-tests";
const SCRAPE = "node-scrape-s3cret-for-tests";

describe("GET /metrics on the Node server", () => {
  const redis = directRedis();
  const prefix = uniquePrefix("node-metrics");
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer({
      redisUrl: redisUrl(),
      jobs: { quick: () => {} },
      ordered: { idx: { perform: () => {} } },
      prefix,
      port: 0,
      secret: SECRET,
      metricsSecret: SCRAPE,
      tickEveryMs: 0,
    });
  });
  afterAll(async () => {
    await server?.close();
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  it("serves what stats() and metrics.query() read to its scraper's secret, and nothing else to it", async () => {
    const tq = server.tickq;
    await tq.enqueueBulk([1, 2, 3].map((n) => ({ name: "quick", args: [n] })));
    await tq.enqueueOrdered("idx", { id: "a", payload: 1 });
    await tq.tick();
    await tq.enqueue("quick", [4], { priority: -3 }); // left waiting: a latency
    const stats = await tq.stats();
    const query = await tq.metrics.query({ sinceMs: Date.now() - 60_000 });
    const scrape = await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${SCRAPE}` } });
    expect(scrape.status).toBe(200);
    const parsed = parseScrape(await scrape.text());
    expect(parsed.value("tickq_processed_total")).toBe(stats.processed);
    expect(stats.processed).toBe(4);
    expect(parsed.value("tickq_queue_size", { queue: "default" })).toBe(stats.queues.default);
    expect(parsed.value("tickq_job_runs_total", { name: "quick" })).toBe(3);
    expect(parsed.value("tickq_job_runs_total", { name: "idx" })).toBe(1);
    expect(parsed.histogram("tickq_ordered_wait_seconds", { name: "idx" })!.count).toBe(query.ordered[0]!.total.waits);
    // Read when asked, a moment after stats(): never less.
    expect(stats.latency.default).toBeGreaterThanOrEqual(0);
    expect(parsed.value("tickq_queue_latency_seconds", { queue: "default" })).toBeGreaterThanOrEqual(
      stats.latency.default! / 1000,
    );
    const stolen = await fetch(`${server.url}/stats`, { headers: { Authorization: `Bearer ${SCRAPE}` } });
    expect(stolen.status).toBe(403);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
  });
});
