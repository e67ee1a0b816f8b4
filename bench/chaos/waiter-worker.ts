// A waiting process of the waiter-death phase (bench/chaos/waiter-phase.ts):
// enqueues its jobs (JIDS, a comma list) with enqueueAndWait, all at once,
// and records each answer in the ledger (LEDGER_URL, a Redis never faulted,
// under LEDGER_PREFIX: `answered` jid → the value as JSON, or the error's
// code). The phase SIGKILLs some of these processes while their jobs run;
// the others must see their jobs' values.
import { Redis } from "ioredis";
import { createTickq, TickqError } from "../../src/index.js";
import { endpointFromEnv, openEndpoint } from "./connect.js";
import { waiterJobs } from "./waiter-jobs.js";

const env = process.env;
const ledger = new Redis(env.LEDGER_URL ?? "redis://127.0.0.1:6379");
const at = env.LEDGER_PREFIX ?? "tickq-chaos-wait:";
const { adapter, close } = openEndpoint(endpointFromEnv(env));
const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const tq = createTickq({
  redis: adapter,
  prefix: env.PREFIX ?? "chaos-wait:",
  jobs: waiterJobs(ledger, at),
  logger: quiet,
});
const jids = (env.JIDS ?? "").split(",").filter((jid) => jid !== "");
await Promise.all(
  jids.map(async (jid, n) => {
    const answer = await tq
      .enqueueAndWait("slow", [n], { jid, kick: false, timeoutMs: 120_000 })
      .then((value) => JSON.stringify(value))
      .catch((error: unknown) => (error instanceof TickqError ? error.code : String(error)));
    await ledger.hset(`${at}answered`, jid, answer);
  }),
);
close();
ledger.disconnect();
