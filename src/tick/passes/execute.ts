// Execute pass: runs one fetched job in JS, wrapped in the middleware, and
// turns whatever happens into an outcome for ack. Never throws: a handler,
// middleware or backoff that throws anything at all fails only its own job.
// Failing a job splices the error fields into the stored string: tickq never
// re-encodes a job (Ruby's 2**53+1 and 1.0 keep their bytes).
import { spliceFields } from "../../client/json-splice.js";
import { deadEntryFor, decodeJob } from "../../client/job.js";
import { JobLog } from "../job-log.js";
import { attemptOf, onFailure } from "../retry.js";
import { compressedBacktrace } from "../../sidekiq/backtrace.js";
import { isLeaseInDoubt, LEASE_DOUBTS_MAX, leaseDoubtsError } from "../../ordered/guard.js";
import { definitionOf, redisNowMs, redisNowSec, type Runtime } from "../runtime.js";
import type { JobContext, JobDefinition, JobPayload, RunningJob } from "../../types.js";
import type { Outcome } from "./ack.js";
import type { FetchedJob } from "./fetch.js";
import { runWithTimeout } from "./timeout.js";
import { monotonicMs } from "../clock.js";
import { reportProgress } from "../../results/progress.js";
import { runMeter } from "../../metrics/measure.js";

export async function runJob(
  runtime: Runtime,
  job: FetchedJob,
  signal: AbortSignal,
  graceMs = 1_000,
): Promise<Outcome> {
  if (job.resurrections >= runtime.maxResurrections) {
    const reason = `its tick died ${job.resurrections} times while running it (maxResurrections ${runtime.maxResurrections})`;
    return unrunnable(runtime, job, "TickqPoisonJob", reason);
  }
  // Not poison: no tick died. The job needs longer than the ticks leave it.
  if (job.interruptions >= runtime.maxResurrections) {
    const reason =
      `a tick's deadline interrupted it ${job.interruptions} times (maxResurrections ${runtime.maxResurrections}): it runs longer than the budget ticks leave it. ` +
      "Give the job a timeoutMs (a tick then starts it only with that much budget left, and a run past it fails and is retried), " +
      "raise the tick budget (tick({ budgetMs }), TICKQ_TICK_BUDGET_MS), or split it into shorter jobs";
    return unrunnable(runtime, job, "TickqDeadlineExceeded", reason);
  }
  const decoded = decodeJob(job.raw, runtime.jobs);
  if (!decoded.ok) {
    if (decoded.errorClass === "TickqUnknownJob") {
      const error = Object.assign(new Error(decoded.reason), { name: "TickqUnknownJob" });
      // A job written without `retry` is retried as Sidekiq's client would default it.
      const payload = { ...decoded.payload, retry: decoded.payload.retry ?? true };
      const failure = await failed(runtime, job, payload, error, { backoff: undefined });
      // A failed run in stats(), so in metrics too: no handler ran, its run time is 0.
      const at = monotonicMs();
      return runtime.metrics ? runMeter(payload, at, runtime.clockOffsetMs)(failure, at) : failure;
    }
    return unrunnable(runtime, job, decoded.errorClass, decoded.reason);
  }

  const definition = definitionOf(runtime, decoded.payload.class)!;
  // A job written without `retry` takes its definition's, as Sidekiq takes the worker's.
  const payload =
    decoded.payload.retry == null ? { ...decoded.payload, retry: definition.retry ?? true } : decoded.payload;
  const attempts = attemptOf(payload);
  const fields = { jid: payload.jid, name: payload.class, queue: job.queue, attempt: attempts };
  const log = new JobLog(runtime.logs, payload, fields, runtime.logLines, () => redisNowMs(runtime));
  const { cancels } = runtime;
  if (cancels.isCancelled(payload.jid)) return { kind: "cancelled", job, payload };
  // ctx.signal is the job's own only once read (src/cancel/watch.ts): a cancel aborts it.
  let own: AbortSignal | undefined;
  const ctx: JobContext = {
    jid: payload.jid,
    queue: job.queue,
    attempt: attempts,
    signal,
    log,
    payload,
    progress: (value) => reportProgress(runtime.progress, payload.jid, value),
  };
  if (job.flowFence !== undefined) ctx.fence = job.flowFence;
  lazySignal(ctx, () => (own ??= cancels.signalFor(payload.jid, signal)));
  const running: RunningJob = { name: payload.class, args: payload.args, payload };
  // The handler's own return is the result, whatever the middleware around it returns.
  let value: unknown;
  const execute = async (c: JobContext) => {
    // A handler that returns at once is not awaited: an await costs every no-op job a turn of the event loop.
    const perform = async () => {
      const returned = definition.perform(payload.args as never, c);
      value = isThenable(returned) ? await returned : returned;
    };
    if (runtime.middleware.length === 0) await perform();
    else await runMiddleware(runtime, running, c, perform);
  };
  const { timeoutMs } = definition;
  const started = monotonicMs();
  // With metrics on, an outcome carries the run's time and wait (src/metrics/); no extra await.
  const meter = runtime.metrics
    ? runMeter(payload, started, runtime.clockOffsetMs)
    : (o: Outcome, _ended?: number) => o;
  // Cancelled while it ran: whatever it returned or threw, it ends cancelled.
  const cancelled = (): Outcome | undefined => {
    if (own) cancels.ended(payload.jid);
    return cancels.isCancelled(payload.jid) ? { kind: "cancelled", job, payload } : undefined;
  };
  const attempt = async (): Promise<Outcome> => {
    try {
      if (timeoutMs === undefined) await execute(ctx);
      else {
        // The job's own signal (a cancel aborts it too) bounds the timeout's.
        await runWithTimeout((bounded) => execute({ ...ctx, signal: bounded }), ctx.signal, {
          name: payload.class,
          timeoutMs,
          graceMs,
          onIgnored: () =>
            ctx.log.warn(`ignored the abort past its timeoutMs (${timeoutMs} ms); it may still be running`),
        });
      }
      return cancelled() ?? meter({ kind: "succeeded", job, payload, value, durationMs: monotonicMs() - started });
    } catch (error) {
      const stopped = cancelled();
      if (stopped) return stopped;
      const ended = monotonicMs();
      if (signal.aborted && isLeaseInDoubt(signal.reason)) {
        if (job.doubts + 1 < LEASE_DOUBTS_MAX) return { kind: "inDoubt", job };
        return meter(
          await failed(runtime, job, payload, leaseDoubtsError(signal.reason), {
            backoff: definition.backoff,
            log: log.lines,
          }),
          ended,
        );
      }
      if (signal.aborted) return { kind: "interrupted", job };
      return meter(await failed(runtime, job, payload, error, { backoff: definition.backoff, log: log.lines }), ended);
    }
  };
  const span = runtime.tracing?.startJob({
    jid: payload.jid,
    name: payload.class,
    queue: job.queue,
    attempt: ctx.attempt,
    traceparent: payload.traceparent,
    tracestate: payload.tracestate,
  });
  if (!span) return attempt();
  const outcome = await span.run(attempt);
  span.end({ outcome: outcome.kind, error: "error" in outcome ? outcome.error : undefined });
  return outcome;
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === "object" || typeof value === "function") &&
  value !== null &&
  typeof (value as { then?: unknown }).then === "function";

function unrunnable(runtime: Runtime, job: FetchedJob, errorClass: string, reason: string): Outcome {
  const { text, fields } = deadEntryFor(job.raw, job.queue, errorClass, reason, redisNowSec(runtime));
  const outcome: Outcome = {
    kind: "dead",
    job,
    updated: text,
    handlerFailed: false,
    reason: `${errorClass}: ${reason}`,
  };
  if (fields) outcome.fields = fields;
  return outcome;
}

interface FailureInput {
  backoff: JobDefinition["backoff"];
  /** The run's last ctx.log lines. */
  log?: string[];
}

async function failed(
  runtime: Runtime,
  job: FetchedJob,
  payload: JobPayload,
  error: unknown,
  input: FailureInput,
): Promise<Outcome> {
  const context = {
    nowSec: redisNowSec(runtime),
    maxRetries: runtime.maxRetries,
    backoff: input.backoff,
    queue: job.queue,
  };
  const result = onFailure(payload, error, context);
  if (result.kind === "discard") return { kind: "discarded", job, payload, error };
  // The job's own `backtrace` option, as Sidekiq reads it; without one, tickq's `backtraceLines`.
  const setting = payload.backtrace ?? (runtime.backtraceLines > 0 ? runtime.backtraceLines : undefined);
  const backtrace = await compressedBacktrace(setting, error);
  const fields: Record<string, unknown> =
    backtrace === undefined ? { ...result.fields } : { ...result.fields, error_backtrace: backtrace };
  // This run's log replaces an earlier one's; a job that never had one does not get an empty one.
  const log = input.log ?? [];
  if (log.length > 0 || "tickq_log" in payload) fields.tickq_log = log;
  // decodeJob read the text as a JSON object, so splicing cannot fail here.
  const updated = spliceFields(job.raw, fields)!;
  return result.kind === "retry"
    ? { kind: "retry", job, updated, fields, delaySec: result.delaySec, payload, error }
    : { kind: "dead", job, updated, fields, handlerFailed: true, payload, error };
}

function runMiddleware(
  runtime: Runtime,
  job: RunningJob,
  ctx: JobContext,
  perform: () => Promise<unknown>,
): Promise<unknown> {
  const chain = runtime.middleware;
  const call = (i: number): Promise<unknown> => (i < chain.length ? chain[i]!(job, ctx, () => call(i + 1)) : perform());
  return call(0);
}

/** ctx.signal made on first read, by one getter shared by every job (a getter in the literal costs every job a fresh shape). */
const SIGNAL_OF = Symbol("tickq.signalOf");
function readSignal(this: JobContext & { [SIGNAL_OF]: () => AbortSignal }): AbortSignal {
  return this[SIGNAL_OF]();
}
function lazySignal(ctx: JobContext, make: () => AbortSignal): void {
  Object.defineProperty(ctx, SIGNAL_OF, { value: make, enumerable: false });
  Object.defineProperty(ctx, "signal", { get: readSignal, enumerable: true, configurable: true });
}
