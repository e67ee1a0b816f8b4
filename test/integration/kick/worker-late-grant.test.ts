// A Worker with kicks, fan-out (TICKQ_MAX_PARALLEL) and no cron, whose kicked
// tick gets its slot grant's reply (parallel.lua) later than the Worker's 2 s
// redisTimeoutMs, through a REST proxy that holds it. Once, the grant was
// sent once: the kicked tick failed before begin, and with no cron and no
// other enqueue nothing ever ticked for the jobs. Now the grant is sent again
// and the replay grants the same slot.
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EDGE_REDIS_TIMEOUT_MS } from "../../../src/http/edge.js";
import { parallel } from "../../../src/protocol/index.js";
import { testEndpoints } from "../../helpers/adapters.js";
import { deleteUnder, directRedis, sleep, uniquePrefix } from "../../helpers/redis.js";
import { startSlowRest, type SlowRest } from "../../helpers/slow-rest.js";
import { workerBundle } from "../../helpers/worker-bundle.js";

/** Nothing else ticks here: a kick that failed never runs the jobs, and the wait bounds only the load. */
const WAIT_MS = 30_000;

describe("a kicked tick on the Worker whose slot grant reply comes after redisTimeoutMs", () => {
  const redis = directRedis();
  const prefix = uniquePrefix("worker-late-grant");
  const SECRET = "worker-late-grant-secret";
  let mf: Miniflare;
  let slow: SlowRest;

  beforeAll(async () => {
    const { restUrl, restToken } = testEndpoints();
    slow = await startSlowRest(restUrl);
    mf = new Miniflare({
      modules: true,
      script: await workerBundle(),
      compatibilityDate: "2025-09-01",
      bindings: {
        UPSTASH_REDIS_REST_URL: slow.url,
        UPSTASH_REDIS_REST_TOKEN: restToken,
        TICKQ_SECRET: SECRET,
        TICKQ_PREFIX: prefix,
        TICKQ_KICK: "1",
        TICKQ_MAX_PARALLEL: "3",
        TICKQ_PUBLIC_URL: "http://worker.test",
      },
    });
    await mf.ready;
  }, 60_000);

  afterAll(async () => {
    await mf?.dispose();
    await slow?.close();
    await deleteUnder(redis, prefix);
    redis.disconnect();
  });

  const processed = async () => Number((await redis.get(`${prefix}stat:processed`)) ?? 0);

  it("sends the grant again and runs the jobs: the kicked tick does not fail before begin", async () => {
    const held = slow.holdNext(parallel.script, EDGE_REDIS_TIMEOUT_MS + 1_000);
    const jobs = Array.from({ length: 10 }, (_, i) => ({ name: "sendWelcomeEmail", args: [`grant${i}@x.y`] }));
    const res = await mf.dispatchFetch("http://worker.test/jobs", {
      method: "POST",
      body: JSON.stringify(jobs),
      headers: { Authorization: `Bearer ${SECRET}` },
    });
    expect(res.status).toBe(201);
    await held;
    const t = Date.now();
    while ((await processed()) < 10 && Date.now() - t < WAIT_MS) await sleep(50);
    expect(await processed()).toBe(10);
    expect(await redis.llen(`${prefix}queue:default`)).toBe(0);
    expect(await redis.keys(`${prefix}inproc:*`)).toEqual([]);
  }, 60_000);
});
