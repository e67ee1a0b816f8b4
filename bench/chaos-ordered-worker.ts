// One ordered chaos worker (spawned by bench/chaos/ordered-phase.ts): ticks
// nonstop with short leases until told to stop (IPC "stop") or killed, over
// the endpoint in CHAOS_ADAPTER / CHAOS_URL / CHAOS_TOKEN. Its handler
// records runs in the ordered ledger (LEDGER_URL, LEDGER_PREFIX). A tick
// that fails (Redis gone, connection killed, reply lost) is simply
// followed by the next one.
import { createTickq } from "../src/index.js";
import type { JobLogger } from "../src/types.js";
import { endpointFromEnv, openEndpoint } from "./chaos/connect.js";
import { openOrderedLedger, orderedChaosJobs } from "./chaos/ordered-jobs.js";
import { sleep } from "./chaos/rng.js";

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const quiet: JobLogger = { info: () => {}, warn: () => {}, error: () => {} };

const ledger = openOrderedLedger(
  env.LEDGER_URL ?? "redis://127.0.0.1:6379",
  env.LEDGER_PREFIX ?? "tickq-chaos-ordered:",
);
const { adapter } = openEndpoint(endpointFromEnv(env));
const tq = createTickq({
  redis: adapter,
  prefix: env.PREFIX ?? "chaos-ordered:",
  jobs: {},
  ordered: orderedChaosJobs(ledger),
  maxResurrections: 1_000,
  redisTimeoutMs: 5_000,
  logger: quiet,
});
const tickOptions = {
  budgetMs: num("BUDGET_MS", 2_500),
  leaseMs: num("LEASE_MS", 1_500),
  batch: num("BATCH", 20),
  concurrency: num("CONCURRENCY", 10),
  graceMs: 200,
};

let stopping = false;
process.on("message", (message) => {
  if (message === "stop") stopping = true;
});
process.on("disconnect", () => process.exit(0)); // the driver is gone
process.on("unhandledRejection", (error) => console.error("chaos-ordered-worker: unhandled rejection", error));

while (!stopping) {
  try {
    const report = await tq.tick(tickOptions);
    if (report.fetched === 0 && !report.more) await sleep(25);
  } catch (error) {
    if (env.CHAOS_VERBOSE)
      console.error(`chaos-ordered-worker ${process.pid}: tick failed: ${(error as Error).message}`);
    await sleep(50);
  }
}
ledger.close();
process.exit(0);
