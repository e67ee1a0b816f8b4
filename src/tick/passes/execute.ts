// Execute pass: runs one fetched job in JS, wrapped in the middleware, and
// turns whatever happens into an outcome for ack. Never throws: a handler,
// middleware or backoff that throws anything at all fails only its own job.
// Failing a job splices the error fields into the stored string: tickq never
// re-encodes a job (Ruby's 2**53+1 and 1.0 keep their bytes). What the
// capabilities add to a run (a cancel, ctx.progress, measures, a backtrace,
// their own aborts) comes in as the tick's job hooks (tick/capability.ts).
import type { Backoffs } from "../backoff.js";
import { spliceFields } from "../../job/json-splice.js";
import { deadEntryFor, decodeJob } from "../../job/codec.js";
import { attemptOf, onFailure } from "../retry.js";
import { definitionOf, redisNowSec, type Runtime } from "../runtime.js";
import type { JobContext, RunningJob } from "../../job/context.js";
import type { JobDefinition } from "../../job/definition.js";
import type { JobPayload } from "../../job/payload.js";
import type { Outcome } from "./ack.js";
import type { FetchedJob } from "./fetch.js";
import type { JobHooks } from "../capability.js";
import { runWithTimeout } from "./timeout.js";
import { monotonicMs } from "../clock.js";
import { RunContext } from "./job-context.js";

// The errors runJob made for a job whose name this tick does not declare: the tick
// records them for stats() (src/tick/unstartable.ts) by identity, never reading a
// thrown value (a handler's error may be a Proxy whose every read throws).
const unknownJobErrors = new WeakSet<object>();

/** Whether an outcome's error is the one runJob gave a job of a name this tick does not declare. */
export function isUnknownJobError(error: unknown): boolean {
  return typeof error === "object" && error !== null && unknownJobErrors.has(error);
}

/**
 * Runs one fetched job; never rejects. Not an async function: a job's run is the promise of its
 * attempt itself, not one more promise that waits for it (bench/client-instructions.ts counts the
 * difference).
 */
export function runJob(
  runtime: Runtime,
  job: FetchedJob,
  signal: AbortSignal,
  graceMs = 1_000,
  hooks: JobHooks = {},
): Promise<Outcome> {
  const outcome = runJobNow(runtime, job, signal, graceMs, hooks);
  return outcome instanceof Promise ? outcome : Promise.resolve(outcome);
}

/**
 * runJob, whose outcome comes back as is when the handler returned at once and nothing waited:
 * a no-op job then makes no promise at all, and its slot frees without a turn of microtasks
 * (bench/client-instructions.ts counts the difference). Never throws; a promise never rejects.
 */
export function runJobNow(
  runtime: Runtime,
  job: FetchedJob,
  signal: AbortSignal,
  graceMs = 1_000,
  hooks: JobHooks = {},
): Outcome | Promise<Outcome> {
  // One function, not a try around a call of the start: the per-job code V8 compiles once it is hot is
  // one graph, not the same graph again inlined in its wrapper (bench/client-instructions.ts).
  try {
    if (job.resurrections >= runtime.maxResurrections) {
      const reason = `its tick died ${job.resurrections} times while running it (maxResurrections ${runtime.maxResurrections})`;
      return unrunnable(runtime, job, "TickqPoisonJob", reason);
    }
    // Not poison: no tick died. The job needs longer than the ticks leave it.
    if (job.interruptions >= runtime.maxResurrections) return interruptedTooOften(runtime, job);
    const decoded = decodeJob(job.raw, runtime.jobs);
    if (!decoded.ok) {
      if (decoded.errorClass === "TickqUnknownJob") return unknownJob(runtime, hooks, job, decoded);
      return unrunnable(runtime, job, decoded.errorClass, decoded.reason);
    }

    const definition = definitionOf(runtime, decoded.payload.class)!;
    // A job written without `retry` takes its definition's, as Sidekiq takes the worker's.
    // decodeJob's payload is this run's own object: set in place.
    const { payload } = decoded;
    if (payload.retry == null) payload.retry = definition.retry ?? true;
    if (hooks.cancelled?.(payload.jid)) return { kind: "cancelled", job, payload };
    const run = new JobRun(runtime, hooks, job, payload, definition, signal, graceMs);
    if (!runtime.tracing) return run.attempt();
    return traced(runtime.tracing, run, job, payload);
  } catch (error) {
    return Promise.reject(error);
  }
}

function interruptedTooOften(runtime: Runtime, job: FetchedJob): Outcome {
  const reason =
    `a tick's deadline interrupted it ${job.interruptions} times (maxResurrections ${runtime.maxResurrections}): it runs longer than the budget ticks leave it. ` +
    "Give the job a timeoutMs (a tick then starts it only with that much budget left, and a run past it fails and is retried), " +
    "raise the tick budget (tick({ budgetMs }), TICKQ_TICK_BUDGET_MS), or split it into shorter jobs";
  return unrunnable(runtime, job, "TickqDeadlineExceeded", reason);
}

async function traced(
  tracing: NonNullable<Runtime["tracing"]>,
  run: JobRun,
  job: FetchedJob,
  payload: JobPayload,
): Promise<Outcome> {
  const span = tracing.startJob({
    jid: payload.jid,
    name: payload.class,
    queue: job.queue,
    attempt: run.ctx.attempt,
    traceparent: payload.traceparent,
    tracestate: payload.tracestate,
  });
  if (!span) return run.attempt();
  const outcome = await span.run(async () => run.attempt());
  span.end({ outcome: outcome.kind, error: "error" in outcome ? outcome.error : undefined });
  return outcome;
}

/** A job whose name this tick does not declare: failed, and retried as Sidekiq retries an unknown class. */
async function unknownJob(
  runtime: Runtime,
  hooks: JobHooks,
  job: FetchedJob,
  decoded: { reason: string; payload: JobPayload },
): Promise<Outcome> {
  const error = Object.assign(new Error(decoded.reason), { name: "TickqUnknownJob" });
  unknownJobErrors.add(error);
  // A job written without `retry` is retried as Sidekiq's client would default it.
  const payload = { ...decoded.payload, retry: decoded.payload.retry ?? true };
  const failure = await failed(runtime, hooks, job, payload, error, { backoff: undefined });
  // A failed run in stats(), so in metrics too: no handler ran, its run time is 0.
  const at = monotonicMs();
  return hooks.meter ? hooks.meter(payload, at, failure, at) : failure;
}

/**
 * One run of a decoded job: its handler inside the middleware, and the outcome. A class, so a plain
 * job costs one object, not a closure per step; what a feature needs (a timeout, metrics, a cancel)
 * is made only for a job that uses it.
 */
class JobRun {
  readonly ctx: RunContext;
  /** The handler's own return is the result, whatever the middleware around it returns. */
  private value: unknown;
  private started = 0;

  constructor(
    private readonly runtime: Runtime,
    private readonly hooks: JobHooks,
    private readonly job: FetchedJob,
    private readonly payload: JobPayload,
    private readonly definition: JobDefinition<never>,
    // The tick's signal and grace as fields, not an object of them made a job (bench/client-instructions.ts).
    private readonly signal: AbortSignal,
    private readonly graceMs: number,
  ) {
    const attempt = attemptOf(payload);
    this.ctx = new RunContext(payload.jid, job.queue, attempt, payload, runtime, hooks, signal, job.flowFence);
  }

  /**
   * The run's outcome: as is when the handler returned at once with no timeout to keep (no promise
   * made), else the promise of it. Never throws; the promise never rejects.
   */
  attempt(): Outcome | Promise<Outcome> {
    this.started = monotonicMs();
    if (this.definition.timeoutMs !== undefined) return this.timed(this.definition.timeoutMs);
    let pending: Promise<void> | undefined;
    try {
      // No middleware (most): the handler called here, not through execute and perform, which V8 would
      // compile apart once hot (bench/client-instructions.ts).
      if (this.runtime.middleware.length === 0) {
        const returned = this.definition.perform(this.payload.args as never, this.ctx);
        if (isThenable(returned)) pending = this.settled(returned);
        else this.value = returned;
      } else pending = this.execute(this.ctx);
    } catch (error) {
      return this.failedRun(error);
    }
    // A handler that returns at once is not awaited: an await costs every no-op job a turn of the event loop.
    if (pending === undefined) return this.ended();
    return pending.then(
      () => this.ended(),
      (error: unknown) => this.failedRun(error),
    );
  }

  /** A run with a timeout: the job's own signal (a cancel aborts it too) bounds the timeout's. */
  private async timed(timeoutMs: number): Promise<Outcome> {
    try {
      await runWithTimeout(
        (bounded) => this.execute(this.ctx.withSignal(bounded)) ?? Promise.resolve(),
        this.ctx.signal,
        {
          name: this.payload.class,
          timeoutMs,
          graceMs: this.graceMs,
          onIgnored: () =>
            this.ctx.log.warn(`ignored the abort past its timeoutMs (${timeoutMs} ms); it may still be running`),
        },
      );
    } catch (error) {
      return this.failedRun(error);
    }
    return this.ended();
  }

  /**
   * The handler returned: its outcome (cancelled, if a cancel came while it ran); should reading it
   * throw, the run failed (as any throw in a run).
   */
  private ended(): Outcome | Promise<Outcome> {
    try {
      const { job, payload, value } = this;
      return (
        this.cancelled() ??
        // `ran` declared from the start: the meter's write then finds its slot, with no change of shape.
        this.measured({
          kind: "succeeded",
          job,
          payload,
          value,
          durationMs: monotonicMs() - this.started,
          ran: undefined,
        })
      );
    } catch (error) {
      return this.failedRun(error);
    }
  }

  /** Runs the handler (inside the middleware, if any); undefined when it returned at once. */
  private execute(c: JobContext): Promise<void> | undefined {
    if (this.runtime.middleware.length === 0) return this.perform(c);
    const running: RunningJob = { name: this.payload.class, args: this.payload.args, payload: this.payload };
    return runMiddleware(this.runtime, running, c, async () => {
      await this.perform(c);
    }).then(() => undefined);
  }

  private perform(c: JobContext): Promise<void> | undefined {
    const returned = this.definition.perform(this.payload.args as never, c);
    if (!isThenable(returned)) {
      this.value = returned;
      return undefined;
    }
    return this.settled(returned);
  }

  /** What an async handler's promise settles to: its value kept as the result. */
  private settled(returned: PromiseLike<unknown>): Promise<void> {
    return Promise.resolve(returned).then((value) => {
      this.value = value;
    });
  }

  /** Cancelled while it ran: whatever it returned or threw, it ends cancelled. */
  private cancelled(): Outcome | undefined {
    this.ctx.ended();
    const { job, payload } = this;
    return this.hooks.cancelled?.(payload.jid) ? { kind: "cancelled", job, payload } : undefined;
  }

  /** With a meter (metrics on), an outcome carries the run's time and wait; `ended`: when it threw. */
  private measured(outcome: Outcome, ended?: number): Outcome {
    const { meter } = this.hooks;
    if (!meter) return outcome;
    return meter(this.payload, this.started, outcome, ended);
  }

  private async failedRun(error: unknown): Promise<Outcome> {
    const stopped = this.cancelled();
    if (stopped) return stopped;
    const ended = monotonicMs();
    const { runtime, hooks, job, payload, definition, signal } = this;
    const input = { backoff: definition as Backoffs, log: this.ctx.loggedLines() };
    if (signal.aborted) {
      // An abort of a capability's making (a lease in doubt) says what it makes of the run; any other puts it back.
      const stop = hooks.aborted?.(signal.reason, job);
      if (stop === "doubt") return { kind: "inDoubt", job };
      if (stop === undefined) return { kind: "interrupted", job };
      return this.measured(await failed(runtime, hooks, job, payload, stop, input), ended);
    }
    return this.measured(await failed(runtime, hooks, job, payload, error, input), ended);
  }
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
  backoff: Backoffs | undefined;
  /** The run's last ctx.log lines. */
  log?: string[];
}

async function failed(
  runtime: Runtime,
  hooks: JobHooks,
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
  // What a capability adds to a failure (src/sidekiq/: the backtrace, as Sidekiq keeps it).
  const more = await hooks.failureFields?.(payload, error);
  const fields: Record<string, unknown> = more === undefined ? { ...result.fields } : { ...result.fields, ...more };
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
  const call = (i: number): Promise<unknown> => {
    if (i >= chain.length) return perform();
    // A plain middleware (Sidekiq's style: call next, return nothing) is over when what it started is.
    let inner: Promise<unknown> | undefined;
    const returned: unknown = chain[i]!(job, ctx, () => (inner = call(i + 1)));
    return isThenable(returned) ? Promise.resolve(returned) : (inner ?? Promise.resolve(returned));
  };
  return call(0);
}
