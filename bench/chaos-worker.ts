// One chaos worker: ticks nonstop until killed. Its jobs sleep a little,
// fail at random, and record every start and every success in Redis.
import { Redis } from "ioredis";
import { ioredisAdapter } from "../adapters/ioredis.js";
import { createTickq } from "../src/index.js";

const { REDIS_URL = "redis://127.0.0.1:6379", PREFIX = "chaos:", FAIL_RATE = "0.1", LEASE_MS = "500" } = process.env;
const probe = new Redis(REDIS_URL);
const tq = createTickq({
  redis: ioredisAdapter(new Redis(REDIS_URL)),
  prefix: PREFIX,
  // a job is resurrected whenever its worker is killed: only a real poison job should die of it
  maxResurrections: 1_000,
  jobs: {
    work: {
      backoff: () => 0,
      perform: async ([ms]: [number], ctx) => {
        await probe.hincrby(`${PREFIX}chaos:starts`, ctx.jid, 1);
        await new Promise((r) => setTimeout(r, ms));
        if (Math.random() < Number(FAIL_RATE)) throw new Error("random failure");
        await probe.sadd(`${PREFIX}chaos:done`, ctx.jid);
      },
    },
  },
});

for (;;) {
  const report = await tq.tick({ budgetMs: 2_000, batch: 20, concurrency: 10, leaseMs: Number(LEASE_MS), graceMs: 100 });
  if (report.fetched === 0) await new Promise((r) => setTimeout(r, 20));
}
