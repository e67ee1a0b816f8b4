// The W3C Trace Context header a job carries in its `traceparent` field
// (and `tracestate`), the same top-level fields Sidekiq's OpenTelemetry
// instrumentation writes into a job: a Ruby worker links to tickq's
// producer span and the other way round, and any other reader ignores them.
import type { OtelSpanContext, OtelTraceState } from "./otel.js";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const INVALID_TRACE = "0".repeat(32);
const INVALID_SPAN = "0".repeat(16);

/** The trace fields a job stores. */
export interface TraceFields {
  traceparent: string;
  tracestate?: string;
}

export function traceFieldsOf(context: OtelSpanContext): TraceFields | undefined {
  if (context.traceId === INVALID_TRACE || context.spanId === INVALID_SPAN) return undefined;
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, "0");
  const fields: TraceFields = { traceparent: `00-${context.traceId}-${context.spanId}-${flags}` };
  const state = context.traceState?.serialize();
  if (state) fields.tracestate = state;
  return fields;
}

/** The producer's span context from a job's fields; undefined when absent or malformed (a job is never refused for it). */
export function spanContextOf(
  traceparent: unknown,
  tracestate: unknown,
  parseState?: (raw: string) => OtelTraceState,
): OtelSpanContext | undefined {
  if (typeof traceparent !== "string") return undefined;
  const match = TRACEPARENT.exec(traceparent);
  if (!match || match[1] === INVALID_TRACE || match[2] === INVALID_SPAN) return undefined;
  const context: OtelSpanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: parseInt(match[3]!, 16),
    isRemote: true,
  };
  if (typeof tracestate === "string" && tracestate !== "" && parseState) context.traceState = parseState(tracestate);
  return context;
}
