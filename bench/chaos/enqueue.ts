// Enqueues the planned jobs through the faulted path, in chunks spread over
// a window, so jobs arrive while faults happen. A chunk that fails (reply
// lost, connection killed, Redis restarting) is sent again with the same
// jids: enqueue dedupes by jid, so a chunk that landed before its reply was
// lost must not land twice (a doubled job would show as a miscount).
import type { Tickq } from "../../src/index.js";
import type { chaosJobs, PlannedJob } from "./jobs.js";
import { between, sleep, type Rng } from "./rng.js";

export interface EnqueueReport {
  chunks: number;
  /** Chunks sent again after an error. */
  retries: number;
  lastError?: string;
}

export async function trickle(tq: Tickq<ReturnType<typeof chaosJobs>>, plan: PlannedJob[], windowMs: number, rng: Rng): Promise<EnqueueReport> {
  const chunks: PlannedJob[][] = [];
  for (let i = 0; i < plan.length; ) {
    const size = between(rng, 10, 150);
    chunks.push(plan.slice(i, i + size));
    i += size;
  }
  const report: EnqueueReport = { chunks: chunks.length, retries: 0 };
  const spacing = windowMs / Math.max(1, chunks.length);
  const started = Date.now();
  const giveUp = started + windowMs + 120_000;
  for (const [n, chunk] of chunks.entries()) {
    const wait = started + n * spacing - Date.now();
    if (wait > 0) await sleep(wait);
    const jobs = chunk.map((j) => ({ name: j.kind, args: j.args, jid: j.id, ...(j.delayMs ? { delayMs: j.delayMs } : {}) }));
    for (;;) {
      try {
        await tq.enqueueBulk(jobs);
        break;
      } catch (error) {
        report.retries++;
        report.lastError = (error as Error).message;
        if (Date.now() > giveUp) throw new Error(`chaos: enqueue kept failing: ${report.lastError}`);
        await sleep(100);
      }
    }
  }
  return report;
}
