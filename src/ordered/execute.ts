// Runs one ordered execution in JS: the handler gets the id, its payloads
// (parsed from their stored JSON, lowest score first) and a context with
// the fence. Never throws: whatever the handler throws fails only this id.
// A failure retries with Sidekiq's backoff (or the job's own) until the
// job's retry limit, then the run's payloads go to the dead set.
import { retryDelayMs } from "../tick/backoff.js";
import { newJid } from "../job/codec.js";
import { monotonicMs } from "../tick/clock.js";
import { describeError, retryLimit } from "../tick/retry.js";
import { redisNowSec } from "../tick/runtime.js";
import type { OrderedRuntime } from "./runtime.js";
import type { LogFields, LogLevel, LogSink } from "../telemetry/logger.js";
import type { JobSpan } from "../telemetry/tracing.js";
import type { JobLogger } from "../job/context.js";
import { orderedCancelKey } from "../cancel/errors.js";
import { isLeaseInDoubt, LEASE_DOUBTS_MAX, leaseDoubtsError, type GuardedRun } from "./guard.js";
import { orderedDefinition } from "./registry.js";
import type { OrderedContext, OrderedDefinition } from "./types.js";
import type { OrderedFetched, OrderedOutcome } from "./work.js";

// Per execution: one context object, one outcome and the parsed payloads; no closure (its key,
// its log and its own signal are made only when something asks for them). A handler that returns at
// once (not a thenable) and no span: the outcome comes back as is, with no promise and no turn of
// microtasks, as a plain job's does (tick/passes/execute.ts runJobNow; bench/ordered-instructions.ts
// counts the difference). `guarded`: the run's state under the tick's guard (guard.ts), its signal made
// only if the handler reads ctx.signal. `done`: called once it ended, whatever the path (the tick's guard
// counts running executions). Never throws; a promise never rejects.
export function runOrdered(
  runtime: OrderedRuntime,
  item: OrderedFetched,
  guarded: GuardedRun,
  done?: () => void,
): OrderedOutcome | Promise<OrderedOutcome> {
  // Set once a promise carries the run on: that promise calls `done` when it ends.
  let handedOn = false;
  try {
    // A run cancelled before it started never starts (src/ordered/cancel.ts).
    const { cancels } = runtime;
    if (cancels.any() && cancels.isCancelled(orderedCancelKey(item.name, item.fence, item.id)))
      return { kind: "cancelled", item };
    if (item.resurrections >= runtime.maxResurrections) {
      const reason = `its tick died ${item.resurrections} times while running it (maxResurrections ${runtime.maxResurrections})`;
      return dead(runtime, item, "TickqPoisonJob", reason, false);
    }
    // Not poison: no tick died. The id's run needs longer than the ticks leave it.
    if (item.interruptions >= runtime.maxResurrections) {
      const reason =
        `a tick's deadline interrupted it ${item.interruptions} times (maxResurrections ${runtime.maxResurrections}): it runs longer than the budget ticks leave it. ` +
        "Raise the tick budget (tick({ budgetMs }), TICKQ_TICK_BUDGET_MS) or do less in one run";
      return dead(runtime, item, "TickqDeadlineExceeded", reason, false);
    }
    // The tick fetches only the names it declares, so the definition is there.
    const definition = orderedDefinition(runtime.ordered, item.name)!;
    const texts = item.payloads;
    const payloads: unknown[] = [];
    try {
      for (let k = 0; k < texts.length; k++) payloads.push(JSON.parse(texts[k]!));
    } catch {
      return dead(
        runtime,
        item,
        "TickqMalformedPayload",
        "a payload is not valid JSON (written to Redis by something other than tickq?)",
        false,
      );
    }
    const ctx = new RunContext(runtime, item, guarded);
    // With telemetry on, a consumer span, active while the handler runs (src/telemetry/tracing.ts).
    const span = runtime.tracing?.startOrdered({
      name: item.name,
      id: item.id,
      fence: item.fence,
      attempt: ctx.attempt,
    });
    if (span) {
      handedOn = true;
      return traced(span, runtime, item, guarded, definition, payloads, ctx, done);
    }
    const started = monotonicMs();
    try {
      const returned: unknown = definition.perform(item.id, payloads as never[], ctx);
      // Read inside the try: a `then` that cannot be read (a getter that throws, a revoked proxy) fails
      // the run, as awaiting it did and as a plain job's does, not the tick's slot (run() never throws).
      if (isThenable(returned)) {
        handedOn = true;
        return awaited(returned, runtime, item, guarded, definition, ctx, started, done);
      }
    } catch (error) {
      return thrown(runtime, item, guarded, definition, ctx, started, error);
    }
    return ctx.cancelled() ?? measured(runtime, started, { kind: "succeeded", item });
  } finally {
    if (!handedOn) done?.();
  }
}

/** What a handler returned (a promise, or any value): its outcome once it settles, then `done`. */
async function awaited(
  returned: unknown,
  runtime: OrderedRuntime,
  item: OrderedFetched,
  guarded: GuardedRun,
  definition: OrderedDefinition<never>,
  ctx: RunContext,
  started: number,
  done: (() => void) | undefined,
): Promise<OrderedOutcome> {
  try {
    await returned;
    return ctx.cancelled() ?? measured(runtime, started, { kind: "succeeded", item });
  } catch (error) {
    return thrown(runtime, item, guarded, definition, ctx, started, error);
  } finally {
    done?.();
  }
}

/** A run inside its span, then `done`. */
async function traced(
  span: JobSpan,
  runtime: OrderedRuntime,
  item: OrderedFetched,
  guarded: GuardedRun,
  definition: OrderedDefinition<never>,
  payloads: unknown[],
  ctx: RunContext,
  done: (() => void) | undefined,
): Promise<OrderedOutcome> {
  try {
    const outcome = await span.run(() => attempt(runtime, item, guarded, definition, payloads, ctx));
    span.end({ outcome: outcome.kind, error: "error" in outcome ? outcome.error : undefined });
    return outcome;
  } finally {
    done?.();
  }
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === "object" || typeof value === "function") &&
  value !== null &&
  typeof (value as { then?: unknown }).then === "function";

/** The handler's run inside a span (the path without one is runOrdered's own): its outcome once it settles. */
async function attempt(
  runtime: OrderedRuntime,
  item: OrderedFetched,
  guarded: GuardedRun,
  definition: OrderedDefinition<never>,
  payloads: unknown[],
  ctx: RunContext,
): Promise<OrderedOutcome> {
  const started = monotonicMs();
  let returned: unknown;
  try {
    returned = definition.perform(item.id, payloads as never[], ctx);
  } catch (error) {
    return thrown(runtime, item, guarded, definition, ctx, started, error);
  }
  return awaited(returned, runtime, item, guarded, definition, ctx, started, undefined);
}

/** The outcome of a handler that threw: cancelled, put back (lease in doubt, deadline), or failed. */
function thrown(
  runtime: OrderedRuntime,
  item: OrderedFetched,
  guarded: GuardedRun,
  definition: OrderedDefinition<never>,
  ctx: RunContext,
  started: number,
  error: unknown,
): OrderedOutcome {
  const stopped = ctx.cancelled();
  if (stopped) return stopped;
  if (guarded.aborted && isLeaseInDoubt(guarded.reason)) {
    if (item.doubts + 1 < LEASE_DOUBTS_MAX) return { kind: "inDoubt", item };
    return measured(runtime, started, failed(runtime, item, definition, leaseDoubtsError(guarded.reason)));
  }
  if (guarded.aborted) return { kind: "interrupted", item };
  return measured(runtime, started, failed(runtime, item, definition, error));
}

/** With metrics on, a finished run carries its measures to the ack (src/metrics/); put back, it runs again. */
function measured(runtime: OrderedRuntime, started: number, outcome: OrderedOutcome): OrderedOutcome {
  if (runtime.metrics) outcome.ran = { durationMs: monotonicMs() - started, startMs: started + runtime.clockOffsetMs };
  return outcome;
}

/** The handler's ctx. `signal` is the run's own only once read (src/cancel/watch.ts): a cancel aborts it. */
class RunContext implements OrderedContext {
  readonly name: string;
  readonly id: string;
  readonly fence: number;
  readonly scores: number[];
  readonly attempt: number;
  private own: AbortSignal | undefined;
  private tagged: TaggedLog | undefined;

  constructor(
    private readonly runtime: OrderedRuntime,
    private readonly item: OrderedFetched,
    private readonly guarded: GuardedRun,
  ) {
    this.name = item.name;
    this.id = item.id;
    this.fence = item.fence;
    this.scores = item.scores;
    this.attempt = item.failures + 1;
  }
  get signal(): AbortSignal {
    this.own ??= this.runtime.cancels.signalFor(this.key(), this.guarded.signal());
    return this.own;
  }
  get log(): JobLogger {
    this.tagged ??= new TaggedLog(this.runtime.logs, this.item);
    return this.tagged;
  }
  private key(): string {
    return orderedCancelKey(this.item.name, this.item.fence, this.item.id);
  }
  /** Cancelled while it ran: whatever it returned or threw, it ends cancelled (no run for the metrics). */
  cancelled(): OrderedOutcome | undefined {
    const { cancels } = this.runtime;
    if (this.own) cancels.ended(this.key());
    return cancels.any() && cancels.isCancelled(this.key()) ? { kind: "cancelled", item: this.item } : undefined;
  }
}

function failed(
  runtime: OrderedRuntime,
  item: OrderedFetched,
  definition: OrderedDefinition<never>,
  error: unknown,
): OrderedOutcome {
  const { errorClass, message } = describeError(error);
  if (item.failures >= retryLimit(definition.retry ?? true, runtime.maxRetries))
    return dead(runtime, item, errorClass, message, true, error);
  return { kind: "retry", item, delayMs: retryDelayMs(definition, item.failures, error), error };
}

/** The dead entry up to its payloads; Lua appends `,"payloads":[…],"scores":[…]}` from what it stores. */
function dead(
  runtime: OrderedRuntime,
  item: OrderedFetched,
  errorClass: string,
  message: string,
  handlerFailed: boolean,
  error?: unknown,
): OrderedOutcome {
  const head = {
    name: item.name,
    id: item.id,
    jid: newJid(),
    fence: item.fence,
    error_class: errorClass,
    error_message: message,
    failed_at: redisNowSec(runtime),
    retry_count: item.failures,
  };
  const outcome: OrderedOutcome = { kind: "dead", item, entry: JSON.stringify(head).slice(0, -1), handlerFailed };
  if (error !== undefined) outcome.error = error;
  return outcome;
}

/**
 * ctx.log: a text line tagged with the execution; a structured one carries name, id, fence and attempt
 * as fields (src/telemetry/logger.ts). A class: an execution costs one small object, not three closures.
 */
class TaggedLog implements JobLogger {
  private readonly fields: LogFields;

  constructor(
    private readonly logs: LogSink,
    private readonly item: OrderedFetched,
  ) {
    this.fields = { name: item.name, id: item.id, fence: item.fence, attempt: item.failures + 1 };
  }
  private write(level: LogLevel, message: string, rest: unknown[]): void {
    const { item } = this;
    const text = this.logs.structured ? message : `[${item.name} ${item.id} #${item.fence}] ${message}`;
    this.logs.write(level, text, this.fields, rest);
  }
  info(message: string, ...rest: unknown[]) {
    this.write("info", message, rest);
  }
  warn(message: string, ...rest: unknown[]) {
    this.write("warn", message, rest);
  }
  error(message: string, ...rest: unknown[]) {
    this.write("error", message, rest);
  }
}
