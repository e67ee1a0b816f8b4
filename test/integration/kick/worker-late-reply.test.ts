// A Worker with kicks and no cron, whose kicked tick gets one reply later
// than the Worker's 2 s redisTimeoutMs (Redis ran the call), through a REST
// proxy that holds it:
// - begin's: once, the tick gave up at that timeout, its jobs sat behind its
//   30 s lease, and with no cron and no other enqueue nothing ever ticked
//   again to put them back (kick/worker.test.ts under load: u113 and u114
//   never ran). Now the tick sends begin again and the replay answers it.
// - with fan-out (TICKQ_MAX_PARALLEL), the slot grant's (parallel.lua): once,
//   it was sent once and the kicked tick failed before begin. Now it is sent
//   again and the replay grants the same slot.
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EDGE_REDIS_TIMEOUT_MS } from "../../../src/http/edge.js";
import { begin, parallel } from "../../../src/protocol/index.js";
import { testEndpoints } from "../../helpers/adapters.js";
import { deleteUnder, directRedis, sleep, uniquePrefix } from "../../helpers/redis.js";
import { startSlowRest, type SlowRest } from "../../helpers/slow-rest.js";
import { workerBundle } from "../../helpers/worker-bundle.js";

/** The tick's lease (leaseMs' default): a tick that gave up holds its jobs this long, and nothing else ticks here. */
const LEASE_MS = 30_000;

const cases = [
  {
    held: "begin",
    script: begin.script,
    bindings: {},
    title: "sends begin again and runs the jobs: none waits behind the tick's lease for a tick that never comes",
  },
  {
    held: "slot grant",
    script: parallel.script,
    bindings: { TICKQ_MAX_PARALLEL: "3", TICKQ_PUBLIC_URL: "http://worker.test" },
    title: "sends the grant again and runs the jobs: the kicked tick does not fail before begin",
  },
];

describe.each(cases)("a kicked tick on the Worker whose $held reply comes after redisTimeoutMs", (c) => {
  const redis = directRedis();
  const prefix = uniquePrefix("worker-late-reply");
  const SECRET = "worker-late-reply-secret";
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
        ...c.bindings,
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

  it(c.title, async () => {
    const held = slow.holdNext(c.script, EDGE_REDIS_TIMEOUT_MS + 1_000);
    const jobs = Array.from({ length: 10 }, (_, i) => ({ name: "sendWelcomeEmail", args: [`late${i}@x.y`] }));
    const res = await mf.dispatchFetch("http://worker.test/jobs", {
      method: "POST",
      body: JSON.stringify(jobs),
      headers: { Authorization: `Bearer ${SECRET}` },
    });
    expect(res.status).toBe(201);
    await held;
    // Bounded by the lease, not a guess: before, they ran only once a later tick came after it (here, never).
    const t = Date.now();
    while ((await processed()) < 10 && Date.now() - t < LEASE_MS) await sleep(50);
    expect(await processed()).toBe(10);
    expect(await redis.llen(`${prefix}queue:default`)).toBe(0);
    expect(await redis.keys(`${prefix}inproc:*`)).toEqual([]);
  }, 60_000);
});
