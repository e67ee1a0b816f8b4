// The example Worker (examples/cloudflare-worker), bundled as
// `npm run build:functions` bundles it, in Miniflare, against the local
// Upstash-compatible server over the real Redis.
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEndpoints } from "../../helpers/adapters.js";
import { deleteUnder, directRedis, sleep, uniquePrefix } from "../../helpers/redis.js";
import { workerBundle } from "../../helpers/worker-bundle.js";

describe("the Cloudflare Worker bundle in Miniflare", () => {
  const redis = directRedis();
  const prefix = uniquePrefix("worker");
  const SECRET = "worker-secret-for-tests";
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
        TICKQ_SECRET: SECRET,
        TICKQ_PREFIX: prefix,
        TICKQ_TICK_BUDGET_MS: "150",
        TICKQ_BATCH: "5",
        TICKQ_CRON_BUDGET_MS: "20000",
      },
    });
    await mf.ready;
  }, 60_000);

  afterAll(async () => {
    await mf?.dispose();
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  const call = (path: string, init: { method?: string; body?: unknown; token?: string | null } = {}) =>
    mf.dispatchFetch(`http://worker.test${path}`, {
      method: init.method ?? "GET",
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      headers: init.token === null ? {} : { Authorization: `Bearer ${init.token ?? SECRET}` },
    });
  const processed = async () => Number((await redis.get(`${prefix}stat:processed`)) ?? 0);

  it("answers 401 without the secret, and /health without it", async () => {
    const res = await call("/jobs", {
      method: "POST",
      body: { name: "sendWelcomeEmail", args: ["a@b.c"] },
      token: null,
    });
    expect(res.status).toBe(401);
    expect((await res.json()) as object).toHaveProperty("error");
    expect((await call("/tick", { method: "POST", token: "wrong" })).status).toBe(401);
    expect((await call("/health", { token: null })).status).toBe(200);
    expect(await redis.exists(`${prefix}queue:default`)).toBe(0);
  });

  it("enqueues through POST /jobs and runs them on POST /tick", async () => {
    const res = await call("/jobs", {
      method: "POST",
      body: [
        { name: "sendWelcomeEmail", args: ["a@b.c"] },
        { name: "sendWelcomeEmail", args: ["d@e.f"] },
        { name: "resizeImage", args: ["https://img", 200] },
      ],
    });
    expect(res.status).toBe(201);
    expect(await redis.llen(`${prefix}queue:default`)).toBe(2);
    expect(await redis.llen(`${prefix}queue:media`)).toBe(1);
    // A tick's budget is 150 ms here: on a busy machine one tick may end
    // before the three jobs have, and say so with `more`; the next goes on.
    const totals = { succeeded: 0, failed: 0, ticks: 0 };
    for (let more = true; more && totals.ticks < 20; totals.ticks++) {
      const tick = await call("/tick", { method: "POST" });
      expect(tick.status).toBe(200);
      const report = (await tick.json()) as { succeeded: number; failed: number; more: boolean };
      totals.succeeded += report.succeeded;
      totals.failed += report.failed;
      more = report.more;
    }
    expect(totals).toMatchObject({ succeeded: 3, failed: 0 });
    expect(await processed()).toBe(3);
  });

  it("answers 400 for an unknown job", async () => {
    const res = await call("/jobs", { method: "POST", body: { name: "nope", args: [] } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/Unknown job "nope"/);
  });

  it("the scheduled handler keeps ticking until a backlog is drained", async () => {
    const before = await processed();
    const jobs = Array.from({ length: 200 }, (_, i) => ({ name: "sendWelcomeEmail", args: [`u${i}@x.y`] }));
    expect((await call("/jobs", { method: "POST", body: jobs })).status).toBe(201);
    // one tick (150 ms, 10 slots, jobs taking ~20 ms each) cannot drain 200 jobs: /tick says more remains
    const one = (await (await call("/tick", { method: "POST" })).json()) as { succeeded: number; more: boolean };
    expect(one.more).toBe(true);
    // Miniflare's Fetcher type leaves out scheduled(), which it implements
    const worker = (await mf.getWorker()) as unknown as {
      scheduled(event: { cron: string }): Promise<{ outcome: string }>;
    };
    const result = await worker.scheduled({ cron: "* * * * *" });
    expect(result.outcome).toBe("ok");
    for (let i = 0; i < 100 && (await processed()) < before + 200; i++) await sleep(50);
    // On a loaded machine a tick of the drain may fail (a Redis call over the
    // Worker's 2 s timeout): its jobs wait in its list until its 30 s lease
    // expires, and a later tick brings them back. Nothing may be lost.
    for (let i = 0; i < 90 && (await processed()) < before + 200; i++) {
      await sleep(500);
      await call("/tick", { method: "POST" });
    }
    expect(await processed()).toBe(before + 200);
    expect(await redis.llen(`${prefix}queue:default`)).toBe(0);
  }, 90_000);
});
