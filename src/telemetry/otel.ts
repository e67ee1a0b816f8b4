// The part of `@opentelemetry/api` tickq calls, declared here so tickq
// neither imports the package nor needs its types: the user passes the
// module (`import * as otel from "@opentelemetry/api"`), and without it
// no telemetry code runs. test/telemetry/otel-api.test.ts checks that the
// real module fits these shapes.

/** A span's identity (`span.spanContext()`), as the W3C traceparent carries it. */
export interface OtelSpanContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote?: boolean;
  traceState?: OtelTraceState;
}

/** A W3C tracestate: tickq only writes it back as text. */
export interface OtelTraceState {
  serialize(): string;
}

/** An OpenTelemetry context (opaque to tickq). */
export interface OtelContext {
  getValue(key: symbol): unknown;
}

/** Attribute values tickq writes. */
export type OtelAttributes = Record<string, string | number | boolean>;

/** The span methods tickq calls. */
export interface OtelSpan {
  spanContext(): OtelSpanContext;
  setAttribute(key: string, value: string | number | boolean): unknown;
  updateName(name: string): unknown;
  recordException(exception: Error | string): void;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

/** The options of `tracer.startSpan` tickq passes. */
export interface OtelSpanOptions {
  kind?: number;
  attributes?: OtelAttributes;
  links?: { context: OtelSpanContext }[];
}

/** A tracer (`otel.trace.getTracer(name)`). */
export interface OtelTracer {
  startSpan(name: string, options?: OtelSpanOptions, context?: OtelContext): OtelSpan;
}

/** The `@opentelemetry/api` module, as far as tickq uses it. */
export interface OtelApi {
  trace: {
    getTracer(name: string, version?: string): OtelTracer;
    getSpan(context: OtelContext): OtelSpan | undefined;
    setSpan(context: OtelContext, span: OtelSpan): OtelContext;
    setSpanContext(context: OtelContext, spanContext: OtelSpanContext): OtelContext;
  };
  /** Parses a W3C tracestate (in @opentelemetry/api since 1.1); without it a job's tracestate is dropped. */
  createTraceState?(raw: string): OtelTraceState;
  context: {
    active(): OtelContext;
    with<F extends () => unknown>(context: OtelContext, fn: F): ReturnType<F>;
  };
}

/** SpanKind and SpanStatusCode values of the OpenTelemetry specification (stable numbers). */
export const SPAN_KIND = { internal: 0, producer: 3, consumer: 4 } as const;
export const STATUS_ERROR = 2;
