// The part of `@opentelemetry/api` tickq calls, declared here so tickq
// neither imports the package nor needs its types: the user passes the
// module (`import * as otel from "@opentelemetry/api"`), and without it
// no telemetry code runs. test/integration/telemetry/traces.test.ts checks that the
// real module fits these shapes.

/** A span's identity (`span.spanContext()`), as the W3C traceparent carries it. */
export interface OtelSpanContext {
  /** 32 hex characters. */
  traceId: string;
  /** 16 hex characters. */
  spanId: string;
  /** W3C trace flags (1: sampled). */
  traceFlags: number;
  /** True when the context came from another process (here: from the job). */
  isRemote?: boolean;
  /** The W3C tracestate, if any. */
  traceState?: OtelTraceState;
}

/** A W3C tracestate: tickq only writes it back as text. */
export interface OtelTraceState {
  /** The tracestate header's text. */
  serialize(): string;
}

/** An OpenTelemetry context (opaque to tickq). */
export interface OtelContext {
  /** A value the context holds. */
  getValue(key: symbol): unknown;
}

/** Attribute values tickq writes. */
export type OtelAttributes = Record<string, string | number | boolean>;

/** Attribute values OpenTelemetry accepts (wider than tickq writes, so the API's SpanOptions fit). */
export type OtelAttributeValue =
  | string
  | number
  | boolean
  | (string | null | undefined)[]
  | (number | null | undefined)[]
  | (boolean | null | undefined)[];

/** The span methods tickq calls. */
export interface OtelSpan {
  /** The span's identity. */
  spanContext(): OtelSpanContext;
  /** Sets one attribute. */
  setAttribute(key: string, value: string | number | boolean): unknown;
  /** Renames the span. */
  updateName(name: string): unknown;
  /** Adds an `exception` event. */
  recordException(exception: Error | string): void;
  /** Sets the status (2: error). */
  setStatus(status: { code: number; message?: string }): unknown;
  /** Ends the span. */
  end(): void;
}

/** The options of `tracer.startSpan` tickq passes. */
export interface OtelSpanOptions {
  /** SpanKind: 0 internal, 3 producer, 4 consumer. */
  kind?: number;
  /** Attributes set at the start. */
  attributes?: Record<string, OtelAttributeValue | undefined>;
  /** Spans this one is linked to. */
  links?: OtelLink[];
}

/** A link to another span. */
export interface OtelLink {
  /** The linked span's identity. */
  context: OtelSpanContext;
}

/** A tracer (`otel.trace.getTracer(name)`). */
export interface OtelTracer {
  /** Starts a span, a child of `context`'s span (default the active one). */
  startSpan(name: string, options?: OtelSpanOptions, context?: OtelContext): OtelSpan;
}

/** The `@opentelemetry/api` module, as far as tickq uses it: pass `import * as otel from "@opentelemetry/api"`. */
export interface OtelApi {
  /** `otel.trace`. */
  trace: {
    /** A tracer of the registered provider. */
    getTracer(name: string, version?: string): OtelTracer;
    /** The span a context holds. */
    getSpan(context: OtelContext): OtelSpan | undefined;
    /** A context holding `span`. */
    setSpan(context: OtelContext, span: OtelSpan): OtelContext;
    /** A context holding a remote span's identity. */
    setSpanContext(context: OtelContext, spanContext: OtelSpanContext): OtelContext;
  };
  /** Parses a W3C tracestate (in @opentelemetry/api since 1.1); without it a job's tracestate is dropped. */
  createTraceState?(raw: string): OtelTraceState;
  /** `otel.context`. */
  context: {
    /** The active context. */
    active(): OtelContext;
    /**
     * Runs `fn` with `context` active (the API's own signature, so its module fits this shape).
     * @typeParam A - `fn`'s arguments.
     * @typeParam F - `fn`.
     */
    with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
      context: OtelContext,
      fn: F,
      thisArg?: ThisParameterType<F>,
      ...args: A
    ): ReturnType<F>;
  };
}

/** SpanKind and SpanStatusCode values of the OpenTelemetry specification (stable numbers). */
export const SPAN_KIND = { internal: 0, producer: 3, consumer: 4 } as const;
export const STATUS_ERROR = 2;
