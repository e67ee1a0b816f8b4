// A real OpenTelemetry SDK for the telemetry tests: an in-memory exporter
// behind a simple (synchronous) span processor, and AsyncLocalStorage for
// the active context, as a Node service would register them.
import * as otel from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";

export interface OtelWorld {
  exporter: InMemorySpanExporter;
  provider: BasicTracerProvider;
  spans(): ReadableSpan[];
}

const KEY = Symbol.for("tickq.test.otel");

/**
 * Registers the SDK globally, once per process (the API keeps the first provider it is given, and test
 * files may share a process): spans() reads what ended since the last reset.
 */
export function registerOtel(): OtelWorld {
  const holder = globalThis as { [KEY]?: OtelWorld };
  holder[KEY] ??= newWorld();
  return holder[KEY];
}

function newWorld(): OtelWorld {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  otel.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  otel.trace.setGlobalTracerProvider(provider);
  return { exporter, provider, spans: () => exporter.getFinishedSpans() };
}

export { otel };
