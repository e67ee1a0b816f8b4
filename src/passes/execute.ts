// Execute pass: runs one fetched job in JS, wrapped in the middleware, and
// turns whatever happens into an outcome for ack. Never throws: a handler,
// middleware or backoff that throws anything at all fails only its own job.
// Failing a job splices the error fields into the stored string: tickq never
// re-encodes a job (Ruby's 2**53+1 and 1.0 keep their bytes).
import { backtraceOf } from "../backtrace.js";
import { spliceFields } from "../json-splice.js";
import { deadEntryFor, decodeJob } from "../job.js";
import { JobLog } from "../job-log.js";
import { onFailure } from "../retry.js";
import { definitionOf, redisNowSec, type Runtime } from "../runtime.js";
import type { JobContext, JobDefinition, JobPayload, RunningJob } from "../types.js";
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
      return failed(runtime, job, payload, error, { backoff: undefined });
    }
    return unrunnable(runtime, job, decoded.errorClass, decoded.reason);
  }

  const { payload } = decoded;
  const definition = definitionOf(runtime, payload.class)!;
  const log = new JobLog(runtime.logger, payload, runtime.logLines, () => Date.now() + runtime.clockOffsetMs);
  const ctx: JobContext = {
    jid: payload.jid,
    queue: job.queue,
    attempt: typeof payload.retry_count === "number" && payload.retry_count >= 0 ? payload.retry_count + 2 : 1,
    signal,
    log,
    payload,
  };
  const perform = async () => definition.perform(payload.args as never, ctx);
  try {
    if (runtime.middleware.length === 0) await perform();
    else await runMiddleware(runtime, { name: payload.class, args: payload.args, payload }, ctx, perform);
    return { kind: "succeeded", job, payload };
  } catch (error) {
    if (signal.aborted) return { kind: "interrupted", job };
    return failed(runtime, job, payload, error, { backoff: definition.backoff, log: log.lines });
  }
}

function unrunnable(runtime: Runtime, job: FetchedJob, errorClass: string, reason: string): Outcome {
  const updated = deadEntryFor(job.raw, job.queue, errorClass, reason, redisNowSec(runtime));
  return { kind: "dead", job, updated, handlerFailed: false, reason: `${errorClass}: ${reason}` };
}

interface FailureContext {
  backoff: JobDefinition["backoff"];
  /** The run's last ctx.log lines. */
  log?: string[];
}

function failed(runtime: Runtime, job: FetchedJob, payload: JobPayload, error: unknown, context: FailureContext): Outcome {
  const result = onFailure(payload, error, redisNowSec(runtime), runtime.maxRetries, context.backoff);
  // The backtrace and log of this run replace those of an earlier one; a
  // job that never had them does not get empty ones.
  const fields: Record<string, unknown> = { ...result.fields };
  const backtrace = backtraceOf(error, runtime.backtraceLines);
  if (backtrace.length > 0 || "error_backtrace" in payload) fields.error_backtrace = backtrace;
  const log = context.log ?? [];
  if (log.length > 0 || "tickq_log" in payload) fields.tickq_log = log;
  // decodeJob read the text as a JSON object, so splicing cannot fail here.
  const updated = spliceFields(job.raw, fields)!;
  return result.kind === "retry"
    ? { kind: "retry", job, updated, delaySec: result.delaySec, payload, error }
    : { kind: "dead", job, updated, handlerFailed: true, payload, error };
}

function runMiddleware(runtime: Runtime, job: RunningJob, ctx: JobContext, perform: () => Promise<unknown>): Promise<unknown> {
  const chain = runtime.middleware;
  const call = (i: number): Promise<unknown> => (i < chain.length ? chain[i]!(job, ctx, () => call(i + 1)) : perform());
  return call(0);
}
