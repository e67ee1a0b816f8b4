// The loop every chaos worker process runs (bench/chaos-worker.ts,
// bench/chaos-ordered-worker.ts, bench/chaos-cluster-worker.ts): ticks
// nonstop with the short leases of BUDGET_MS, LEASE_MS, BATCH and
// CONCURRENCY until the driver says "stop" over IPC (or goes away), a
// failed tick followed by the next one; then `close` and exit.
import type { JobLogger } from "../../src/job/context.js";
import type { TickOptions } from "../../src/tick/options.js";
import type { TickReport } from "../../src/types.js";
import { sleep } from "./rng.js";

export const quietLogger: JobLogger = { info: () => {}, warn: () => {}, error: () => {} };

/** The number in env `name`, or `fallback` when it is unset or empty. */
export function envNumber(name: string, fallback: number): number {
  const value = process.env[name];
  return value ? Number(value) : fallback;
}

export async function runChaosWorker(
  name: string,
  tq: { tick(options: TickOptions): Promise<TickReport> },
  close: () => void,
): Promise<never> {
  const tickOptions = {
    budgetMs: envNumber("BUDGET_MS", 2_500),
    leaseMs: envNumber("LEASE_MS", 1_500),
    batch: envNumber("BATCH", 20),
    concurrency: envNumber("CONCURRENCY", 10),
    graceMs: 200,
  };
  let stopping = false;
  const seen = new Set<string>();
  process.on("message", (message) => {
    if (message === "stop") stopping = true;
  });
  process.on("disconnect", () => process.exit(0)); // the driver is gone
  process.on("unhandledRejection", (error) => console.error(`${name}: unhandled rejection`, error));

  while (!stopping) {
    try {
      const report = await tq.tick(tickOptions);
      if (report.fetched === 0 && !report.more) await sleep(25);
    } catch (error) {
      const message = (error as Error).message;
      // Each kind of failure once (digits aside), so a phase that fails shows why its workers did nothing
      // (a script the REST server refuses, say) among the workers' last stderr lines.
      const kind = message.replace(/\d+/g, "N");
      if (process.env.CHAOS_VERBOSE || (!seen.has(kind) && seen.size < 20)) {
        seen.add(kind);
        console.error(`${name} ${process.pid}: tick failed: ${message}`);
      }
      await sleep(50);
    }
  }
  close();
  process.exit(0);
}
