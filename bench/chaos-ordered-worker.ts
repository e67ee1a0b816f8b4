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
// CHAOS_MAX_PAYLOADS (from the environment of bench/chaos-ordered.ts): the ordered job takes at most that
// many payloads an execution (maxPayloads), so the faults also hit runs with payloads left behind them.
const jobs = orderedChaosJobs(ledger);
const cap = env.CHAOS_MAX_PAYLOADS ? Number(env.CHAOS_MAX_PAYLOADS) : undefined;
const tq = createTickq({
  redis: adapter,
  prefix: env.PREFIX ?? "chaos-ordered:",
  jobs: {},
  ordered: cap === undefined ? jobs : { chaosOrdered: { ...jobs.chaosOrdered, maxPayloads: cap } },
  maxResurrections: 1_000,
  redisTimeoutMs: 5_000,
  logger: quietLogger,
});
await runChaosWorker("chaos-ordered-worker", tq, () => {
  ledger.close();
});
