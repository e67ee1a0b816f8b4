// Enqueues the planned jobs through the faulted path, in chunks spread over
// a window, so jobs arrive while faults happen. A chunk that fails (reply
// lost, connection killed, Redis restarting) is sent again with the same
// jids: enqueue dedupes by jid, so a chunk that landed before its reply was
// lost must not land twice (a doubled job would show as a miscount). A
// duplicate of a unique key is answered the jid of the job that holds the
// key: those answers are kept (`answered`), as are the ids of chunks sent
// again (`resent`: their answer may be that of the resend).
import type { Tickq } from "../../src/index.js";
import type { chaosJobs, PlannedJob } from "./jobs.js";
import { between, sleep, type Rng } from "./rng.js";

export interface EnqueueReport {
  chunks: number;
  /** Chunks sent again after an error. */
  retries: number;
  /** Planned id → the other jid its enqueue was answered (a duplicate of a unique key). */
  answered: Map<string, string>;
  /** Ids of the chunks sent again. */
  resent: Set<string>;
  lastError?: string;
}

export async function trickle(
  tq: Tickq<ReturnType<typeof chaosJobs>>,
  plan: PlannedJob[],
  windowMs: number,
  rng: Rng,
): Promise<EnqueueReport> {
  const chunks: PlannedJob[][] = [];
  for (let i = 0; i < plan.length; ) {
    const size = between(rng, 10, 150);
    chunks.push(plan.slice(i, i + size));
    i += size;
  }
  const report: EnqueueReport = { chunks: chunks.length, retries: 0, answered: new Map(), resent: new Set() };
  const spacing = windowMs / Math.max(1, chunks.length);
  const started = Date.now();
  const giveUp = started + windowMs + 120_000;
  for (const [n, chunk] of chunks.entries()) {
    const wait = started + n * spacing - Date.now();
    if (wait > 0) await sleep(wait);
    const jobs = chunk.map((j) => ({
      name: j.kind,
      args: j.args,
      jid: j.id,
      ...(j.delayMs ? { delayMs: j.delayMs } : {}),
      ...(j.expiresInMs ? { expiresInMs: j.expiresInMs } : {}),
      ...(j.unique ? { unique: j.unique } : {}),
    }));
    for (;;) {
      try {
        const jids = await tq.enqueueBulk(jobs);
        for (const [k, jid] of jids.entries()) if (jid !== chunk[k]!.id) report.answered.set(chunk[k]!.id, jid);
        break;
      } catch (error) {
        report.retries++;
        for (const j of chunk) report.resent.add(j.id);
        report.lastError = (error as Error).message;
        if (Date.now() > giveUp) throw new Error(`chaos: enqueue kept failing: ${report.lastError}`);
        await sleep(100);
      }
    }
  }
  return report;
}
