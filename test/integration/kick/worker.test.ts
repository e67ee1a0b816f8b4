// Kick and fan-out in the bundled Worker (the example, bundled as
// build-functions does) in
// Miniflare: a kicked tick runs inside the request's waitUntil, and a tick
// that ends with work left fans out through the Worker's own URL, never
// more than TICKQ_MAX_PARALLEL ticks live.
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../src/platforms/node/find-redis.js";
import { testEndpoints } from "../../helpers/adapters.js";
import { deleteUnder, directRedis, sleep, uniquePrefix } from "../../helpers/redis.js";
import { workerBundle } from "../../helpers/worker-bundle.js";
import { sampleLive } from "./live.js";

describe("kick and fan-out in the bundled Worker", () => {
  const redis = directRedis();
  const prefix = uniquePrefix("worker-kick");
  const SECRET = "worker-secret-for-tests";
  let mf: Miniflare;

  beforeAll(async () => {
    const { restUrl, restToken } = testEndpoints();
    // fan-out calls the Worker's own URL: Miniflare's, on a port chosen here
    const port = await freePort();
    const bindings: Record<string, string> = {
      UPSTASH_REDIS_REST_URL: restUrl,
      UPSTASH_REDIS_REST_TOKEN: restToken,
      TICKQ_SECRET: SECRET,
      TICKQ_PREFIX: prefix,
      // A tick's first batch of 5 comes back full and fans out at once, whatever its budget. 2 s, not
      // 200 ms: at CI's load a tick's own round trips over REST take hundreds of ms, and with 200 ms the
      // 20 ms jobs were cut at the deadline three times, dead by maxResurrections (140 of 300 ran in 30 s).
      TICKQ_TICK_BUDGET_MS: "2000",
      TICKQ_BATCH: "5",
      TICKQ_KICK: "1",
      TICKQ_MAX_PARALLEL: "3",
      TICKQ_PUBLIC_URL: `http://127.0.0.1:${port}`,
    };
    mf = new Miniflare({
      modules: true,
      script: await workerBundle(),
      compatibilityDate: "2025-09-01",
      bindings,
      host: "127.0.0.1",
      port,
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
  const until = async (done: () => Promise<boolean>, ms = 15_000) => {
    for (const t = Date.now(); Date.now() - t < ms; await sleep(20)) if (await done()) return true;
    return false;
  };

  // Nothing else ticks here (no cron, no /tick): a job runs only if its kick ran it, and a lost kick never
  // runs it, so the wait bounds only the machine's load. A 3 s bound on the first kick failed at CI's load
  // (3.5 s: the Worker's first request, its first REST round trips).
  it("POST /jobs kicks a tick inside waitUntil: the job runs with no /tick and no cron", async () => {
    const before = await processed();
    const res = await call("/jobs", { method: "POST", body: { name: "sendWelcomeEmail", args: ["kick@x.y"] } });
    expect(res.status).toBe(201);
    expect(await until(async () => (await processed()) === before + 1)).toBe(true);
  });

  it("your own route enqueues through c.var.tq and kicks", async () => {
    const before = await processed();
    const res = await call("/signup", { method: "POST", body: { email: "new@x.y" }, token: null });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ welcome: "on its way" });
    expect(await until(async () => (await processed()) === before + 1)).toBe(true);
  });

  it("a backlog fans out through the Worker's own /tick, at most TICKQ_MAX_PARALLEL ticks live", async () => {
    const before = await processed();
    const sampler = sampleLive(redis, prefix, 3);
    // 300 jobs of ~20 ms, 600 ms of work for one tick's 10 slots: the first tick's full first batch fans
    // out to 2 more, which share the backlog while it runs
    const jobs = Array.from({ length: 300 }, (_, i) => ({ name: "sendWelcomeEmail", args: [`u${i}@x.y`] }));
    expect((await call("/jobs", { method: "POST", body: jobs })).status).toBe(201);
    const drained = await until(async () => (await processed()) >= before + 300, 30_000);
    const max = await sampler.stop();
    expect(drained).toBe(true);
    expect(await redis.llen(`${prefix}queue:default`)).toBe(0);
    expect(max).toBeLessThanOrEqual(3);
    expect(max).toBeGreaterThanOrEqual(2);
  }, 40_000);
});
