// A step given up (Redis paused) whose resend before finish is given up too
// (src/tick/given-up.ts): over TCP the original, its resends and finish all
// wait on the one connection and Redis runs them in that order when it wakes,
// so the original's acks are done before finish. Finish must not ack them a
// second time: with jobs of the same text (a producer that sets no jid), a
// second ack of a text takes out another copy, one the late step fetched,
// and that job would never run. Each pushed copy runs (at least) once.
// A private redis-server, since CLIENT PAUSE stops every client.
import { describe, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { openAdapter } from "../../helpers/open-adapter.js";
import { usePausedRedis } from "../../helpers/paused-redis.js";

// Long enough that begin answers in time on a loaded machine (300 ms did not at load 16).
const TIMEOUT_MS = 1_000;
// Past the step's give-up (≈ 2 × 1,000 + 50 ms) and its resend's before finish (≈ 1,000 ms more), and finish's.
const PAUSE_MS = 5_000;
const LEASE_MS = 6_000;
const COPIES = 20;
const text = JSON.stringify({ class: "work", args: [0], queue: "default" });

describe.each(["ioredis", "node-redis"])("a given-up step whose resend is given up too, over %s", (name) => {
  const redis = usePausedRedis();

  it("every copy of a text without a jid still runs: finish takes none the late step fetched", async () => {
    const { direct } = redis;
    const opened = openAdapter(name, { redisUrl: redis.url, restUrl: "", restToken: "" });
    let runs = 0;
    let paused = false;
    const options = {
      redis: opened.adapter,
      prefix: "givenup2:",
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      jobs: {
        work: async () => {
          runs++;
          if (!paused) {
            paused = true;
            await redis.pause(PAUSE_MS);
          }
        },
      },
    };
    // The tick that gives up has the short patience; the ticks after it, with Redis awake, the default.
    const tq = createTickq({ ...options, redisTimeoutMs: TIMEOUT_MS });
    const after = createTickq(options);
    try {
      await direct.rpush("givenup2:queue:default", ...Array.from({ length: COPIES }, () => text));
      await tq
        .tick({ batch: 5, concurrency: 1, budgetMs: 20_000, leaseMs: LEASE_MS })
        .then(() => undefined)
        .catch((e: unknown) => e);
      // Redis awake again; the lease lapses and later ticks put back what the late step fetched.
      const until = Date.now() + 30_000;
      while (runs < COPIES && Date.now() < until) {
        await after.tick({ batch: 5, budgetMs: 2_000, leaseMs: LEASE_MS });
        await new Promise((r) => setTimeout(r, 200));
      }
      const left = { runs, queued: await direct.llen("givenup2:queue:default"), keys: await direct.keys("givenup2:*") };
      expect(left).toMatchObject({ runs: COPIES });
      const stats = await after.stats();
      expect(stats.inflight).toBe(0);
      expect(await direct.llen("givenup2:queue:default")).toBe(0);
    } finally {
      await opened.close();
      await direct.flushall();
    }
  }, 60_000);
});
