// A worker of the rollback phase (bench/chaos/rollback-phase.ts): one tick
// loop over the endpoint in CHAOS_*, running the phase's jobs, ordered ids and
// workflow runs (bench/chaos/rollback-jobs.ts) until told to stop. After each
// tick that returned (lease kept, nothing abandoned), the successes it ran
// are recorded as acknowledged: the tick acks what it ran before it returns.
import { Redis } from "ioredis";
import { endpointFromEnv, openEndpoint } from "./connect.js";
import { openRollbackLedger, rollbackTickq, type Success } from "./rollback-jobs.js";
import { envNumber } from "./worker-loop.js";
import { sleep } from "./rng.js";

const env = process.env;
const ledgerRedis = new Redis(env.LEDGER_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
ledgerRedis.on("error", () => {});
let current: Success[] = [];
const ledger = openRollbackLedger(ledgerRedis, env.LEDGER_PREFIX ?? "tickq-chaos-rollback:", () => current);
const { adapter, close } = openEndpoint(endpointFromEnv(env));
const tq = rollbackTickq(adapter, env.PREFIX ?? "chaos-rollback:", ledger, 5_000);
const tickOptions = {
  budgetMs: envNumber("BUDGET_MS", 1_000),
  leaseMs: envNumber("LEASE_MS", 1_500),
  batch: 20,
  concurrency: 10,
  // GRACE_MS: a smaller grace leaves more steps past it (their ledger writes after the sleep), to exercise the count.
  graceMs: envNumber("GRACE_MS", 200),
};
let stopping = false;
process.on("message", (message) => {
  if (message === "stop") stopping = true;
});
process.on("disconnect", () => process.exit(0));
while (!stopping) {
  const successes: Success[] = [];
  current = successes;
  try {
    const report = await tq.tick(tickOptions);
    if (!report.leaseLost && report.abandoned === 0) {
      // A workflow step's success is acked only once committed. A tick that keeps its lease leaves a run
      // uncommitted when its step was still running graceMs after the abort (report.workflows.abandoned):
      // the run stays the tick's until the lease expires, then its step runs again; or when Redis refused the
      // run's commit (report.workflows.lost: a rollback forgot the claim and the scripts saw no restart, within
      // the second of the last one). Counted, not acked.
      const steps = successes.filter((s) => s.unit.includes(":")).length;
      const committed = report.workflows?.steps ?? 0;
      const abandoned = report.workflows?.abandoned ?? 0;
      const lost = report.workflows?.lost ?? 0;
      if (steps > committed) {
        const why = `tick ${report.tickId} ran ${steps} steps, committed ${committed}, left ${abandoned} runs past graceMs, ${lost} runs' commits not stored`;
        if (env.CHAOS_VERBOSE) console.error(`rollback-worker ${process.pid}: ${why}`);
        // A run's round here is one step (a, b, c, d in turn): a run left past graceMs, or whose commit was not
        // stored, holds back one at most.
        await ledger.uncommitted(steps - committed, steps - committed > abandoned + lost ? why : undefined);
        await ledger.acked(successes.filter((s) => !s.unit.includes(":")));
      } else await ledger.acked(successes);
    }
    if (report.fetched === 0 && !report.more) await sleep(25);
  } catch (error) {
    if (env.CHAOS_VERBOSE) console.error(`rollback-worker ${process.pid}: tick failed: ${(error as Error).message}`);
    await sleep(50);
  }
}
close();
ledgerRedis.disconnect();
process.exit(0);
