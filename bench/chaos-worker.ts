// One chaos worker (spawned by bench/chaos.ts): ticks nonstop with short
// leases until told to stop (IPC "stop") or killed, over the endpoint in
// CHAOS_ADAPTER / CHAOS_URL / CHAOS_TOKEN. Its jobs record every start and
// finish in the ledger (LEDGER_URL, LEDGER_PREFIX). CHAOS_ORDERED=1 adds the
// cancel phase's ordered job. A tick that fails (Redis
// gone, connection killed, reply lost) is simply followed by the next one.
import { createTickq } from "../src/index.js";
import { endpointFromEnv, openEndpoint } from "./chaos/connect.js";
import { chaosOrdered } from "./chaos/cancel-ordered.js";
import { chaosJobs } from "./chaos/jobs.js";
import { openLedger } from "./chaos/ledger.js";
import { quietLogger, runChaosWorker } from "./chaos/worker-loop.js";

const env = process.env;

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
  logger: quietLogger,
});
await runChaosWorker("chaos-worker", tq, () => {
  ledger.close();
});
