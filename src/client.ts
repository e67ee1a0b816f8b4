// Enqueue: validate everything first, so a bad job in a bulk call throws
// before anything is written, then push in as few round trips as possible
// (enqueue.lua takes many jobs per call).
//
// Idempotent: every call carries a token that enqueue.lua remembers for
// `replayWindowMs`, so a call the client resends (a lost reply) pushes
// nothing twice; a jid the caller chose is remembered for `idWindowMs`, so
// retrying a timed-out enqueue with the same jid never doubles the job.
import { TickqError } from "./errors.js";
import { encodeNewJob, newJid } from "./job.js";
import { isCleanName } from "./names.js";
import type { RoundTrips } from "./redis.js";
import { definitionOf, type Runtime } from "./runtime.js";
import { scripts } from "./scripts/index.js";
import type { BulkJob } from "./types.js";

/** Jobs per enqueue.lua call: keeps one script's run short on a busy Redis. */
const CHUNK = 1_000;

interface Prepared {
  jid: string;
  args: (string | number)[];
}

function prepare(runtime: Runtime, job: BulkJob): Prepared {
  const definition = definitionOf(runtime, job.name);
  if (!definition) {
    const known = Object.keys(runtime.jobs).join(", ") || "none";
    throw new TickqError("UNKNOWN_JOB", `Unknown job "${job.name}": register it in createTickq({ jobs }) (registered: ${known})`);
  }
  if (!Array.isArray(job.args)) {
    throw new TickqError("BAD_ARGS", `Job "${job.name}": args must be an array, got ${job.args === null ? "null" : typeof job.args}`);
  }
  const queue = job.queue ?? definition.queue ?? "default";
  if (!isCleanName(queue)) {
    throw new TickqError("BAD_ARGS", `Job "${job.name}": queue must be a non-empty name without spaces, got ${JSON.stringify(queue)}`);
  }
  if (job.jid !== undefined && !isCleanName(job.jid, 128)) {
    throw new TickqError("BAD_ARGS", `Job "${job.name}": jid must be a non-empty string of at most 128 characters without spaces`);
  }
  const atMs = job.at === undefined ? 0 : job.at.getTime();
  if (Number.isNaN(atMs)) throw new TickqError("BAD_ARGS", `Job "${job.name}": \`at\` is an invalid Date`);
  const delayMs = job.delayMs ?? 0;
  if (!Number.isFinite(delayMs)) throw new TickqError("BAD_ARGS", `Job "${job.name}": delayMs must be a finite number`);
  const jid = job.jid ?? newJid();
  const json = encodeNewJob({ class: job.name, args: job.args, jid, queue, retry: job.retry ?? definition.retry ?? true });
  return { jid, args: [queue, Math.floor(delayMs), Math.floor(atMs), job.jid ?? "", json] };
}

export async function enqueueJobs(runtime: Runtime, jobs: BulkJob[]): Promise<string[]> {
  if (!Array.isArray(jobs)) throw new TickqError("BAD_ARGS", "enqueueBulk takes an array of { name, args, … }");
  const prepared = jobs.map((job) => prepare(runtime, job));
  const trips: RoundTrips = { count: 0 };
  for (let i = 0; i < prepared.length; i += CHUNK) {
    const chunk = prepared.slice(i, i + CHUNK);
    const args = [newJid(), runtime.replayWindowMs, runtime.idWindowMs, chunk.length, ...chunk.flatMap((p) => p.args)];
    await runtime.run(scripts.enqueue, [runtime.keys.queues, runtime.keys.schedule], args, trips);
  }
  return prepared.map((p) => p.jid);
}
