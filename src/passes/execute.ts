// Execute pass: runs a fetched batch in JS, `concurrency` handlers at once,
// each wrapped in the middleware. Never throws: every job ends with an
// outcome for ack, or, if its handler is still running after the grace
// period that follows the deadline, is left unacked in the inproc list for
// a later tick to resurrect.
import { deadEntryFor, decodeJob } from "../job.js";
import { onFailure } from "../retry.js";
import { definitionOf, redisNowSec, type Runtime } from "../runtime.js";
import type { JobContext, JobLogger, JobPayload, RunningJob } from "../types.js";
import type { Outcome } from "./ack.js";
import type { FetchedJob } from "./fetch.js";

export interface ExecuteResult {
  outcomes: Outcome[];
  /** Jobs whose handlers did not settle in time; they stay in inproc. */
  abandoned: number;
}

export async function executeBatch(
  runtime: Runtime,
  batch: FetchedJob[],
  signal: AbortSignal,
  concurrency: number,
  graceMs: number,
): Promise<ExecuteResult> {
  const outcomes: (Outcome | undefined)[] = new Array(batch.length);
  let closed = false;
  let next = 0;

  const worker = async () => {
    while (next < batch.length) {
      const index = next++;
      const job = batch[index]!;
      const outcome = signal.aborted ? ({ kind: "unstarted", job } as const) : await settle(runtime, job, signal);
      if (!closed) outcomes[index] = outcome;
    }
  };
  const workers = Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, batch.length)) }, worker));
  const grace = afterAbort(signal, graceMs);
  await Promise.race([workers, grace.elapsed]);
  grace.cancel();
  closed = true;

  const settled = outcomes.filter((o): o is Outcome => o !== undefined);
  return { outcomes: settled, abandoned: batch.length - settled.length };
}

function unrunnable(runtime: Runtime, job: FetchedJob, errorClass: string, reason: string): Outcome {
  const updated = deadEntryFor(job.raw, job.queue, errorClass, reason, redisNowSec(runtime));
  return { kind: "dead", job, updated, handlerFailed: false };
}

async function settle(runtime: Runtime, job: FetchedJob, signal: AbortSignal): Promise<Outcome> {
  if (job.resurrections >= runtime.maxResurrections) {
    const reason = `its tick died ${job.resurrections} times while running it (maxResurrections ${runtime.maxResurrections})`;
    return unrunnable(runtime, job, "TickqPoisonJob", reason);
  }
  const decoded = decodeJob(job.raw, runtime.jobs);
  if (!decoded.ok) return unrunnable(runtime, job, decoded.errorClass, decoded.reason);

  const { payload } = decoded;
  const definition = definitionOf(runtime, payload.class)!;
  const ctx: JobContext = {
    jid: payload.jid,
    queue: job.queue,
    attempt: typeof payload.retry_count === "number" ? payload.retry_count + 2 : 1,
    signal,
    log: new JobLog(runtime.logger, payload),
    payload,
  };
  const perform = async () => definition.perform(payload.args as never, ctx);
  try {
    if (runtime.middleware.length === 0) await perform();
    else await runMiddleware(runtime, { name: payload.class, args: payload.args, payload }, ctx, perform);
    return { kind: "succeeded", job };
  } catch (error) {
    if (signal.aborted) return { kind: "interrupted", job };
    return failed(runtime, job, payload, error, definition.backoff);
  }
}

function failed(runtime: Runtime, job: FetchedJob, payload: JobPayload, error: unknown, backoff?: (count: number, error: unknown) => number): Outcome {
  const result = onFailure(payload, error, redisNowSec(runtime), runtime.maxRetries, backoff);
  const updated = JSON.stringify(result.payload);
  return result.kind === "retry"
    ? { kind: "retry", job, updated, delaySec: result.delaySec }
    : { kind: "dead", job, updated, handlerFailed: true };
}

function runMiddleware(runtime: Runtime, job: RunningJob, ctx: JobContext, perform: () => Promise<unknown>): Promise<unknown> {
  const chain = runtime.middleware;
  const call = (i: number): Promise<unknown> => (i < chain.length ? chain[i]!(job, ctx, () => call(i + 1)) : perform());
  return call(0);
}

/** `elapsed` resolves `graceMs` after the signal aborts; `cancel` drops the listener and timer. */
function afterAbort(signal: AbortSignal, graceMs: number): { elapsed: Promise<void>; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let arm = () => {};
  const elapsed = new Promise<void>((resolve) => {
    arm = () => void (timer = setTimeout(resolve, graceMs));
  });
  if (signal.aborted) arm();
  else signal.addEventListener("abort", arm, { once: true });
  return {
    elapsed,
    cancel: () => {
      signal.removeEventListener("abort", arm);
      clearTimeout(timer);
    },
  };
}

/** ctx.log: the tickq logger, each line tagged with the job. A class, so a job costs one small object, not three closures. */
class JobLog implements JobLogger {
  constructor(
    private readonly logger: JobLogger,
    private readonly payload: JobPayload,
  ) {}
  private tag(message: string): string {
    return `[${this.payload.class} ${this.payload.jid}] ${message}`;
  }
  info(message: string, ...rest: unknown[]) {
    this.logger.info(this.tag(message), ...rest);
  }
  warn(message: string, ...rest: unknown[]) {
    this.logger.warn(this.tag(message), ...rest);
  }
  error(message: string, ...rest: unknown[]) {
    this.logger.error(this.tag(message), ...rest);
  }
}
