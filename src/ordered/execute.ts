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
import type { JobLogger } from "../job/context.js";
import { orderedCancelKey } from "../cancel/errors.js";
import { isLeaseInDoubt, LEASE_DOUBTS_MAX, leaseDoubtsError } from "./guard.js";
import { orderedDefinition } from "./registry.js";
import type { OrderedContext, OrderedDefinition } from "./types.js";
import type { OrderedFetched, OrderedOutcome } from "./work.js";

export async function runOrdered(
  runtime: OrderedRuntime,
  item: OrderedFetched,
  signal: AbortSignal,
): Promise<OrderedOutcome> {
  // A run cancelled before it started never starts (src/cancel/ordered.ts).
  const { cancels } = runtime;
  const key = () => orderedCancelKey(item.name, item.fence, item.id);
  if (cancels.any() && cancels.isCancelled(key())) return { kind: "cancelled", item };
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
  let payloads: unknown[];
  try {
    payloads = item.payloads.map((text) => JSON.parse(text) as unknown);
  } catch {
    return dead(
      runtime,
      item,
      "TickqMalformedPayload",
      "a payload is not valid JSON (written to Redis by something other than tickq?)",
      false,
    );
  }
  // ctx.signal is the run's own only once read (src/cancel/watch.ts): a cancel aborts it.
  let own: AbortSignal | undefined;
  const ctx: OrderedContext = {
    name: item.name,
    id: item.id,
    fence: item.fence,
    scores: item.scores,
    attempt: item.failures + 1,
    get signal() {
      own ??= cancels.signalFor(key(), signal);
      return own;
    },
    log: new TaggedLog(runtime.logs, item),
  };
  // Cancelled while it ran: whatever it returned or threw, it ends cancelled (no run for the metrics).
  const cancelled = (): OrderedOutcome | undefined => {
    if (own) cancels.ended(key());
    return cancels.any() && cancels.isCancelled(key()) ? { kind: "cancelled", item } : undefined;
  };
  const started = monotonicMs();
  // With metrics on, a finished run carries its measures to the ack (src/metrics/); put back, it runs again.
  const measured = (outcome: OrderedOutcome): OrderedOutcome => {
    if (runtime.metrics)
      outcome.ran = { durationMs: monotonicMs() - started, startMs: started + runtime.clockOffsetMs };
    return outcome;
  };
  const attempt = async (): Promise<OrderedOutcome> => {
    try {
      await definition.perform(item.id, payloads as never[], ctx);
      return cancelled() ?? measured({ kind: "succeeded", item });
    } catch (error) {
      const stopped = cancelled();
      if (stopped) return stopped;
      if (signal.aborted && isLeaseInDoubt(signal.reason)) {
        if (item.doubts + 1 < LEASE_DOUBTS_MAX) return { kind: "inDoubt", item };
        return measured(failed(runtime, item, definition, leaseDoubtsError(signal.reason)));
      }
      if (signal.aborted) return { kind: "interrupted", item };
      return measured(failed(runtime, item, definition, error));
    }
  };
  // With telemetry on, a consumer span, active while the handler runs (src/telemetry/tracing.ts).
  const span = runtime.tracing?.startOrdered({ name: item.name, id: item.id, fence: item.fence, attempt: ctx.attempt });
  if (!span) return attempt();
  const outcome = await span.run(attempt);
  span.end({ outcome: outcome.kind, error: "error" in outcome ? outcome.error : undefined });
  return outcome;
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
