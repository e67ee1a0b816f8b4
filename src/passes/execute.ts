// Execute pass: runs one fetched job in JS, wrapped in the middleware, and
// turns whatever happens into an outcome for ack. Never throws: a handler,
// middleware or backoff that throws anything at all fails only its own job.
// Failing a job splices the error fields into the stored string: tickq never
// re-encodes a job (Ruby's 2**53+1 and 1.0 keep their bytes).
import { spliceFields } from "../json-splice.js";
import { deadEntryFor, decodeJob } from "../job.js";
import { attemptOf, onFailure } from "../retry.js";
import { compressedBacktrace } from "../sidekiq/backtrace.js";
import { definitionOf, redisNowSec, type Runtime } from "../runtime.js";
import type { JobContext, JobDefinition, JobLogger, JobPayload, RunningJob } from "../types.js";
import type { Outcome } from "./ack.js";
import type { FetchedJob } from "./fetch.js";

export async function runJob(runtime: Runtime, job: FetchedJob, signal: AbortSignal): Promise<Outcome> {
  if (job.resurrections >= runtime.maxResurrections) {
    const reason = `its tick died ${job.resurrections} times while running it (maxResurrections ${runtime.maxResurrections})`;
    return unrunnable(runtime, job, "TickqPoisonJob", reason);
  }
  const decoded = decodeJob(job.raw, runtime.jobs);
  if (!decoded.ok) {
    if (decoded.errorClass === "TickqUnknownJob") {
      const error = Object.assign(new Error(decoded.reason), { name: "TickqUnknownJob" });
      // A job written without `retry` is retried as Sidekiq's client would default it.
      const payload = { ...decoded.payload, retry: decoded.payload.retry ?? true };
      return failed(runtime, job, payload, error, undefined);
    }
    return unrunnable(runtime, job, decoded.errorClass, decoded.reason);
  }

  const definition = definitionOf(runtime, decoded.payload.class)!;
  // A job written without `retry` takes its definition's, as Sidekiq takes the worker's.
  const payload = decoded.payload.retry == null ? { ...decoded.payload, retry: definition.retry ?? true } : decoded.payload;
  const ctx: JobContext = {
    jid: payload.jid,
    queue: job.queue,
    attempt: attemptOf(payload),
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

function unrunnable(runtime: Runtime, job: FetchedJob, errorClass: string, reason: string): Outcome {
  const updated = deadEntryFor(job.raw, job.queue, errorClass, reason, redisNowSec(runtime));
  return { kind: "dead", job, updated, handlerFailed: false };
}

async function failed(runtime: Runtime, job: FetchedJob, payload: JobPayload, error: unknown, backoff: JobDefinition["backoff"]): Promise<Outcome> {
  const context = { nowSec: redisNowSec(runtime), maxRetries: runtime.maxRetries, backoff, queue: job.queue };
  const result = onFailure(payload, error, context);
  if (result.kind === "discard") return { kind: "discarded", job };
  const backtrace = await compressedBacktrace(payload.backtrace, error);
  const fields = backtrace === undefined ? { ...result.fields } : { ...result.fields, error_backtrace: backtrace };
  // decodeJob read the text as a JSON object, so splicing cannot fail here.
  const updated = spliceFields(job.raw, fields)!;
  return result.kind === "retry"
    ? { kind: "retry", job, updated, delaySec: result.delaySec }
    : { kind: "dead", job, updated, handlerFailed: true };
}

function runMiddleware(runtime: Runtime, job: RunningJob, ctx: JobContext, perform: () => Promise<unknown>): Promise<unknown> {
  const chain = runtime.middleware;
  const call = (i: number): Promise<unknown> => (i < chain.length ? chain[i]!(job, ctx, () => call(i + 1)) : perform());
  return call(0);
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
