// One worker of the clock phase (bench/chaos/clock-phase.ts): ticks nonstop
// while its wall clock (Date.now) steps back and forth by up to CLOCK_STEP_MS
// every few hundred ms, as NTP or a resumed VM would step it. tickq must
// measure nothing with it: no overlap, no spurious abort.
import { createTickq } from "../src/index.js";
import type { JobLogger } from "../src/job/context.js";
import { clockChaosJobs, openClockLedger } from "./chaos/clock-jobs.js";
import { endpointFromEnv, openEndpoint } from "./chaos/connect.js";
import { seededRng, sleep } from "./chaos/rng.js";

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const quiet: JobLogger = { info: () => {}, warn: () => {}, error: () => {} };

const rng = seededRng(num("SEED", 1) + process.pid);
const realNow = Date.now.bind(Date);
let skew = 0;
Date.now = () => realNow() + skew;
const stepMs = num("CLOCK_STEP_MS", 60_000);
const ledger = openClockLedger(env.LEDGER_URL ?? "redis://127.0.0.1:6379", env.LEDGER_PREFIX ?? "tickq-chaos-clock:");
const stepper = setInterval(
  () => {
    skew = Math.round((rng() * 2 - 1) * stepMs);
    void ledger.redis.incr(ledger.key("steps")).catch(() => {});
  },
  150 + Math.floor(rng() * 250),
);

const { adapter } = openEndpoint(endpointFromEnv(env));
const tq = createTickq({
  redis: adapter,
  prefix: env.PREFIX ?? "chaos-clock:",
  ...clockChaosJobs(ledger),
  maxResurrections: 1_000,
  redisTimeoutMs: 5_000,
  logger: quiet,
});
const tickOptions = {
  budgetMs: num("BUDGET_MS", 2_500),
  leaseMs: num("LEASE_MS", 1_500),
  batch: 10,
  concurrency: 10,
  graceMs: 200,
};

let stopping = false;
process.on("message", (message) => {
  if (message === "stop") stopping = true;
});
process.on("disconnect", () => process.exit(0));
process.on("unhandledRejection", (error) => console.error("clock-chaos-worker: unhandled rejection", error));

while (!stopping) {
  try {
    const report = await tq.tick(tickOptions);
    if (report.fetched === 0 && !report.more) await sleep(25);
  } catch (error) {
    if (env.CHAOS_VERBOSE) console.error(`clock-chaos-worker ${process.pid}: tick failed: ${(error as Error).message}`);
    await sleep(50);
  }
}
clearInterval(stepper);
ledger.close();
process.exit(0);
