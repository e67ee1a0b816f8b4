// Spans after OpenTelemetry's messaging semantic conventions: enqueue is a
// producer span ("send <queue>") whose context every job of the call
// carries; running a job is a consumer span ("process <queue>"), a child of
// that context and linked to it, so a job's trace starts at its enqueue
// even in another process or on a retry days later; a tick is a span too,
// linked from the jobs it ran. Spans end before the call that made them
// returns, so on Workers and Vercel they end inside the request or its
// waitUntil; `flush` then exports them before the function freezes.
import {
  SPAN_KIND,
  STATUS_ERROR,
  type OtelApi,
  type OtelAttributes,
  type OtelContext,
  type OtelSpan,
  type OtelTracer,
} from "./otel.js";
import { spanContextOf, traceFieldsOf, type TraceFields } from "./traceparent.js";

/** The `telemetry` option of createTickq. */
export interface TelemetryOptions {
  /** The OpenTelemetry API module: `import * as otel from "@opentelemetry/api"`. tickq imports nothing of it itself. */
  otel: OtelApi;
  /** The tracer's name; default "tickq". */
  tracerName?: string;
  /**
   * Awaited at the end of every tick (at most 5 s), such as `() => provider.forceFlush()`:
   * on Workers and Vercel a tick runs in waitUntil, so its spans are exported before the function freezes.
   */
  flush?: () => Promise<unknown>;
}

/** What a job's consumer span records about it. */
export interface TracedJob {
  jid: string;
  name: string;
  queue: string;
  attempt: number;
  traceparent?: unknown;
  tracestate?: unknown;
}

/** What an ordered id's consumer span records about its execution (src/ordered/). */
export interface TracedOrdered {
  name: string;
  id: string;
  fence: number;
  attempt: number;
}

/** How a run ended, for its span: the outcome's kind, and what the handler threw. */
export interface JobEnd {
  outcome: string;
  error?: unknown;
}

const SYSTEM = "tickq";
const FLUSH_MS = 5_000;

function messaging(operation: "send" | "process", queue?: string): OtelAttributes {
  const attributes: OtelAttributes = {
    "messaging.system": SYSTEM,
    "messaging.operation.name": operation,
    "messaging.operation.type": operation,
  };
  if (queue !== undefined) attributes["messaging.destination.name"] = queue;
  return attributes;
}

function recordError(span: OtelSpan, error: unknown): void {
  const name = error instanceof Error ? error.name : typeof error;
  const message = error instanceof Error ? error.message : String(error);
  span.recordException(error instanceof Error ? error : message);
  span.setAttribute("error.type", name);
  span.setStatus({ code: STATUS_ERROR, message: `${name}: ${message}` });
}

/** An enqueue call's producer span. */
export class SendSpan {
  /** The trace fields each job of the call stores; undefined when the span is not recorded anywhere (an invalid context). */
  readonly fields: TraceFields | undefined;

  constructor(private readonly span: OtelSpan) {
    this.fields = traceFieldsOf(span.spanContext());
  }

  /** Names the destination once the jobs are checked: one queue, or several (then no destination, as the conventions say). */
  sent(queues: string[], jids: string[]): void {
    const distinct = [...new Set(queues)];
    if (distinct.length === 1) {
      this.span.updateName(`send ${distinct[0]}`);
      this.span.setAttribute("messaging.destination.name", distinct[0]!);
    }
    if (jids.length === 1) this.span.setAttribute("messaging.message.id", jids[0]!);
    else this.span.setAttribute("messaging.batch.message_count", jids.length);
  }

  end(error?: unknown): void {
    if (error !== undefined) recordError(this.span, error);
    this.span.end();
  }
}

/** A job's consumer span, active while its handler runs (so the handler's own spans are its children). */
export class JobSpan {
  constructor(
    private readonly otel: OtelApi,
    private readonly span: OtelSpan,
    private readonly context: OtelContext,
  ) {}

  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.otel.context.with(this.context, fn);
  }

  end({ outcome, error }: JobEnd): void {
    this.span.setAttribute("tickq.job.outcome", outcome);
    if (error !== undefined) recordError(this.span, error);
    this.span.end();
  }
}

export class Tracing {
  private readonly tracer: OtelTracer;

  constructor(
    private readonly options: TelemetryOptions,
    private readonly warn: (message: string) => void,
  ) {
    this.tracer = options.otel.trace.getTracer(options.tracerName ?? "tickq");
  }

  send(): SendSpan {
    return new SendSpan(this.tracer.startSpan("send", { kind: SPAN_KIND.producer, attributes: messaging("send") }));
  }

  startJob(job: TracedJob): JobSpan {
    const { otel } = this;
    const active = otel.context.active();
    const producer = spanContextOf(job.traceparent, job.tracestate, otel.createTraceState?.bind(otel));
    const tick = otel.trace.getSpan(active)?.spanContext();
    const links = [producer, tick].filter((c) => c !== undefined).map((context) => ({ context }));
    const parent = producer ? otel.trace.setSpanContext(active, producer) : active;
    const attributes = {
      ...messaging("process", job.queue),
      "messaging.message.id": job.jid,
      "tickq.job.name": job.name,
      "tickq.job.attempt": job.attempt,
    };
    const span = this.tracer.startSpan(`process ${job.queue}`, { kind: SPAN_KIND.consumer, attributes, links }, parent);
    return new JobSpan(otel, span, otel.trace.setSpan(parent, span));
  }

  /**
   * An ordered id's execution: "process <name>", a child of the tick that ran it. Its payloads carry no
   * trace context: they are stored as the bare JSON a caller sent, deduplicated by their text.
   */
  startOrdered(run: TracedOrdered): JobSpan {
    const { otel } = this;
    const active = otel.context.active();
    const attributes = {
      ...messaging("process", run.name),
      "messaging.message.id": run.id,
      "tickq.job.name": run.name,
      "tickq.job.attempt": run.attempt,
      "tickq.ordered.fence": run.fence,
    };
    const span = this.tracer.startSpan(`process ${run.name}`, { kind: SPAN_KIND.consumer, attributes }, active);
    return new JobSpan(otel, span, otel.trace.setSpan(active, span));
  }

  /** Runs a tick inside its span; `summary` turns its report into attributes. */
  async tick<T>(tickId: string, run: () => Promise<T>, summary: (result: T) => OtelAttributes): Promise<T> {
    const { otel } = this;
    const span = this.tracer.startSpan("tick", {
      kind: SPAN_KIND.internal,
      attributes: { "messaging.system": SYSTEM, "tickq.tick.id": tickId },
    });
    try {
      const result = await otel.context.with(otel.trace.setSpan(otel.context.active(), span), run);
      for (const [key, value] of Object.entries(summary(result))) span.setAttribute(key, value);
      return result;
    } catch (error) {
      recordError(span, error);
      throw error;
    } finally {
      span.end();
      await this.flush();
    }
  }

  private get otel(): OtelApi {
    return this.options.otel;
  }

  private async flush(): Promise<void> {
    if (!this.options.flush) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, FLUSH_MS)));
    try {
      await Promise.race([this.options.flush(), late]);
    } catch (error) {
      this.warn(`tickq: telemetry flush failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      clearTimeout(timer);
    }
  }
}
