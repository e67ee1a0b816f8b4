import { Redis } from "ioredis";
import { ioredisAdapter } from "../../adapters/ioredis.js";
import { createTickq } from "../../src/index.js";
import type { System, SystemFactory } from "./types.js";

export const tickqSystem: SystemFactory = async (redisUrl, label) => {
  const redis = new Redis(redisUrl);
  const prefix = `bench:${label}:`;
  const tq = createTickq({ redis: ioredisAdapter(redis), prefix, jobs: { noop: () => {} } });
  const system: System = {
    name: "tickq",
    async enqueue(n) {
      await tq.enqueueBulk(Array.from({ length: n }, (_, i) => ({ name: "noop", args: [i] })));
    },
    async drain(n) {
      let done = 0;
      let roundTrips = 0;
      while (done < n) {
        const report = await tq.tick({ batch: 100, concurrency: 100, budgetMs: 60_000 });
        done += report.succeeded;
        roundTrips += report.roundTrips;
        if (report.fetched === 0) throw new Error(`tickq drained only ${done} of ${n}`);
      }
      return { roundTrips };
    },
    async idle(ms) {
      // a cron trigger: one tick a minute on an empty queue
      const end = Date.now() + ms;
      while (Date.now() < end) {
        await tq.tick();
        await new Promise((r) => setTimeout(r, Math.min(60_000, end - Date.now())));
      }
    },
    async close() {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    },
  };
  return system;
};
