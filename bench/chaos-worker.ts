// One chaos worker (spawned by bench/chaos.ts): ticks nonstop with short
// leases until told to stop (IPC "stop") or killed, over the endpoint in
// CHAOS_ADAPTER / CHAOS_URL / CHAOS_TOKEN. Its jobs record every start and
// finish in the ledger (LEDGER_URL, LEDGER_PREFIX). CHAOS_ORDERED=1 adds the
// cancel phase's ordered job. A tick that fails (Redis
// gone, connection killed, reply lost) is simply followed by the next one.
import { createTickq } from "../src/index.js";
import type { JobLogger } from "../src/types.js";
import { endpointFromEnv, openEndpoint } from "./chaos/connect.js";
import { chaosOrdered } from "./chaos/cancel-ordered.js";
import { chaosJobs } from "./chaos/jobs.js";
import { openLedger } from "./chaos/ledger.js";
import { sleep } from "./chaos/rng.js";

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const quiet: JobLogger = { info: () => {}, warn: () => {}, error: () => {} };

const ledger = openLedger(env.LEDGER_URL ?? "redis://127.0.0.1:6379", env.LEDGER_PREFIX ?? "tickq-chaos:");
const { adapter } = openEndpoint(endpointFromEnv(env));
const tq = createTickq({
  redis: adapter,
  prefix: env.PREFIX ?? "chaos:",
  jobs: chaosJobs(ledger),
  // The cancel phase's ordered ids (bench/chaos/cancel-ordered.ts); the other phases run none.
  ordered: env.CHAOS_ORDERED === "1" ? chaosOrdered(ledger) : {},
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
process.on("unhandledRejection", (error) => console.error("chaos-worker: unhandled rejection", error));

while (!stopping) {
  try {
    const report = await tq.tick(tickOptions);
    if (report.fetched === 0 && !report.more) await sleep(25);
  } catch (error) {
    if (env.CHAOS_VERBOSE) console.error(`chaos-worker ${process.pid}: tick failed: ${(error as Error).message}`);
    await sleep(50);
  }
}
ledger.close();
process.exit(0);
