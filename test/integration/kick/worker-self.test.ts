// Fan-out from the Cron Trigger through a service binding to the Worker
// itself (TICKQ_SELF), on the bundled Worker in Miniflare, with
// TICKQ_INSECURE=1 and no secret (local development).
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEndpoints } from "../../helpers/adapters.js";
import { deleteUnder, directRedis, sleep, uniquePrefix } from "../../helpers/redis.js";
import { workerBundle } from "../../helpers/worker-bundle.js";
import { sampleLive } from "./live.js";

describe("fan-out through TICKQ_SELF, with TICKQ_INSECURE", () => {
  const redis = directRedis();
  const prefix = uniquePrefix("worker-self");
  let mf: Miniflare;

  beforeAll(async () => {
    const { restUrl, restToken } = testEndpoints();
    mf = new Miniflare({
      name: "tickq",
      modules: true,
      script: await workerBundle(),
      compatibilityDate: "2025-09-01",
      serviceBindings: { TICKQ_SELF: "tickq" },
      bindings: {
        UPSTASH_REDIS_REST_URL: restUrl,
        UPSTASH_REDIS_REST_TOKEN: restToken,
        TICKQ_PREFIX: prefix,
        TICKQ_INSECURE: "1",
        // The cron's one tick has 1 s (its budget caps the tick's) for 1000 jobs of ~20 ms, 2 s of work for its
        // 10 slots: it ends with work left and fans out, and a loaded machine leaves it more. The fanned-out
        // ticks have 2 s, not 200 ms: at CI's load a tick's own REST round trips took most of 200 ms, and
        // its 20 ms jobs, cut at the deadline three times, went dead by maxResurrections (kick/worker.test.ts).
        TICKQ_CRON_BUDGET_MS: "1000",
        TICKQ_TICK_BUDGET_MS: "2000",
        TICKQ_BATCH: "5",
        TICKQ_MAX_PARALLEL: "3",
      },
    });
    await mf.ready;
  }, 60_000);

  afterAll(async () => {
    await mf?.dispose();
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  it("serves without a secret, and the cron hands a backlog to parallel ticks through the binding", async () => {
    const jobs = Array.from({ length: 1_000 }, (_, i) => ({ name: "sendWelcomeEmail", args: [`s${i}@x.y`] }));
    const res = await mf.dispatchFetch("http://localhost/jobs", {
      method: "POST",
      body: JSON.stringify(jobs),
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(201);
    const sampler = sampleLive(redis, prefix, 3);
    const worker = (await mf.getWorker()) as unknown as {
      scheduled(e: { cron: string }): Promise<{ outcome: string }>;
    };
    expect((await worker.scheduled({ cron: "* * * * *" })).outcome).toBe("ok");
    const processed = async () => Number((await redis.get(`${prefix}stat:processed`)) ?? 0);
    // Nothing else ticks here (the cron fired once), so a job the fan-out lost never runs: the wait bounds the load.
    for (const t = Date.now(); (await processed()) < 1_000 && Date.now() - t < 30_000; ) await sleep(25);
    const max = await sampler.stop();
    expect(await processed()).toBe(1_000);
    expect(await redis.llen(`${prefix}queue:default`)).toBe(0);
    expect(max).toBeLessThanOrEqual(3);
    expect(max).toBeGreaterThanOrEqual(2);
  }, 45_000);
});
