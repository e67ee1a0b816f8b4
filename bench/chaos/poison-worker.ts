// A worker of the poison phase (bench/chaos/poison-phase.ts): ticks nonstop
// with tickq's defaults (batch, concurrency, maxResurrections) over the
// endpoint in CHAOS_*, in TICK_LOOPS loops at once (default 2: a kill takes
// every tick of the process, so a suspect's solo run must be alone in the
// process, not only in its tick), until told to stop or dead. Every run is counted in
// the ledger (LEDGER_URL: a Redis never faulted) under LEDGER_PREFIX, as
// runs (hash id → runs), stopped (hash id → runs whose signal aborted while they ran: a lease in
// doubt or the tick's deadline, after which the job may run again, as promised) and finished (set of
// ids); a run of an id that starts with "poison" SIGKILLs this process first, as an out-of-memory or
// a platform time-limit kill would.
import { Redis } from "ioredis";
import { createTickq, type JobContext, type OrderedContext } from "../../src/index.js";
import type { JobLogger } from "../../src/job/context.js";
import { endpointFromEnv, openEndpoint } from "./connect.js";
import { sleep } from "./rng.js";

const env = process.env;
const quiet: JobLogger = { info: () => {}, warn: () => {}, error: () => {} };
const ledger = new Redis(env.LEDGER_URL ?? "redis://127.0.0.1:6379");
const at = env.LEDGER_PREFIX ?? "tickq-chaos-poison:";
const { adapter } = openEndpoint(endpointFromEnv(env));

async function ran(id: string, signal: AbortSignal): Promise<void> {
  await ledger.hincrby(`${at}runs`, id, 1);
  if (id.startsWith("poison")) process.kill(process.pid, "SIGKILL");
  await sleep(5 + (id.length % 7) * 3);
  // Aborted before the handler ended: its tick could not confirm its lease in time (or met its
  // deadline). The run may go back, or its job be handed on once the lease lapses, and run again:
  // an extra run that no death caused.
  if (signal.aborted) await ledger.hincrby(`${at}stopped`, id, 1);
  await ledger.sadd(`${at}finished`, id);
}

export const poisonPhaseJobs = {
  jobs: {
    plain: ([id]: [string], ctx: JobContext) => ran(id, ctx.signal),
    limited: {
      perform: ([id]: [string], ctx: JobContext) => ran(id, ctx.signal),
      concurrency: { key: ([id]: [string]) => `k${id.length % 4}`, limit: 3 },
    },
  },
  ordered: { item: { perform: (id: string, _payloads: number[], ctx: OrderedContext) => ran(id, ctx.signal) } },
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const tq = createTickq({
    redis: adapter,
    prefix: env.PREFIX ?? "chaos:",
    ...poisonPhaseJobs,
    redisTimeoutMs: 5_000,
    logger: quiet,
  });
  const tickOptions = { budgetMs: Number(env.BUDGET_MS ?? 2_500), leaseMs: Number(env.LEASE_MS ?? 1_500) };
  let stopping = false;
  process.on("message", (message) => {
    if (message === "stop") stopping = true;
  });
  process.on("disconnect", () => process.exit(0));
  const loop = async () => {
    while (!stopping) {
      try {
        const report = await tq.tick(tickOptions);
        if (report.fetched === 0 && !report.more) await sleep(25);
      } catch {
        await sleep(50);
      }
    }
  };
  await Promise.all(Array.from({ length: Number(env.TICK_LOOPS ?? 2) }, loop));
  ledger.disconnect();
  process.exit(0);
}
