// A step the tick gave up on (Redis paused past 2 × redisTimeoutMs + patience:
// src/tick/calls.ts) still sits in the client's queue over TCP, and Redis runs
// it when it wakes — before the tick's finish, written after it on the same
// connection. Its fetch moved a batch into the tick's lists that the tick never
// saw. The tick must not leave that batch behind its lease (for a resurrector
// that counts each job as a suspect, and a Worker with no cron may never run):
// before finish it sends the given-up step once more, whose replay answers the
// jobs, and finish hands them back. Each job then runs once, none waits for a
// resurrection, none is counted resurrected. Every given-up step answered, the
// tick ends as one that stopped early: no REDIS_TIMEOUT, a warning, and
// report.givenUpSteps.
// A private redis-server, since CLIENT PAUSE stops every client.
import { describe, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import type { TickReport } from "../../../src/tick/tick-report.js";
import { openAdapter } from "../../helpers/open-adapter.js";
import { usePausedRedis } from "../../helpers/paused-redis.js";

const TIMEOUT_MS = 300;
// Past the step's give-up (≈ 2 × 300 + 50 ms), well before a resend 300 ms + patience after that ends.
const PAUSE_MS = 1_000;
const JOBS = 40;

describe.each(["ioredis", "node-redis"])("a step given up over %s, run by Redis after", (name) => {
  const redis = usePausedRedis();

  it("leaves none of its jobs in the tick's lists: they go back, each runs once, none resurrected, and the tick ends without error", async () => {
    const { direct } = redis;
    const opened = openAdapter(name, { redisUrl: redis.url, restUrl: "", restToken: "" });
    const runs = new Map<number, number>();
    const warnings: string[] = [];
    let paused = false;
    const tq = createTickq({
      redis: opened.adapter,
      prefix: "givenup:",
      redisTimeoutMs: TIMEOUT_MS,
      logger: { info: () => {}, warn: (line: string) => void warnings.push(line), error: () => {} },
      jobs: {
        work: async (args: [number]) => {
          runs.set(args[0], (runs.get(args[0]) ?? 0) + 1);
          // The first job pauses Redis: the step that acks it and fetches the next batch waits at Redis.
          if (!paused) {
            paused = true;
            await redis.pause(PAUSE_MS);
          }
        },
      },
    });
    try {
      await tq.enqueueBulk(Array.from({ length: JOBS }, (_, i) => ({ name: "work" as const, args: [i] as [number] })));
      const report = await tq
        .tick({ batch: 5, concurrency: 1, budgetMs: 20_000 })
        .catch((e: unknown) => ({ failed: e }));
      // The step was given up, and its resend answered: the tick ends, stopped early, and says so in a warning.
      expect(report).toMatchObject({ givenUpSteps: 1, more: false } satisfies Partial<TickReport>);
      expect(warnings.some((line) => line.includes("gave up on 1 step(s)"))).toBe(true);
      // Nothing is left in the tick's lists: what the late step fetched went back with finish.
      const stats = await tq.stats();
      expect(stats.inflight).toBe(0);
      expect((stats.queues.work ?? stats.queues.default ?? 0) + runs.size).toBe(JOBS);
      for (let i = 0; i < 20 && runs.size < JOBS; i++) await tq.tick({ batch: 5, budgetMs: 5_000 });
      expect(runs.size).toBe(JOBS);
      expect([...runs.values()].every((n) => n === 1)).toBe(true);
      expect(await direct.exists("givenup:resurrections")).toBe(0);
    } finally {
      await opened.close();
      await direct.flushall();
    }
  }, 30_000);
});
