// One ordered chaos worker (spawned by bench/chaos/ordered-phase.ts): ticks
// nonstop with short leases until told to stop (IPC "stop") or killed, over
// the endpoint in CHAOS_ADAPTER / CHAOS_URL / CHAOS_TOKEN. Its handler
// records runs in the ordered ledger (LEDGER_URL, LEDGER_PREFIX). A tick
// that fails (Redis gone, connection killed, reply lost) is simply
// followed by the next one.
import { createTickq } from "../src/index.js";
import { endpointFromEnv, openEndpoint } from "./chaos/connect.js";
import { openOrderedLedger, orderedChaosJobs } from "./chaos/ordered-jobs.js";
import { quietLogger, runChaosWorker } from "./chaos/worker-loop.js";

const env = process.env;

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
  logger: quietLogger,
});
await runChaosWorker("chaos-ordered-worker", tq, () => {
  ledger.close();
});
