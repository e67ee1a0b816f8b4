// tickq with OpenTelemetry spans on, for `--only tickq,tickq-traced`: the
// real SDK, a batch span processor as a service would run, and an exporter
// that drops what it gets, so the figure is tickq's cost, not a network's.
import * as otel from "@opentelemetry/api";
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { tickqSystemWith } from "./tickq.js";
import type { SystemFactory } from "./types.js";

const dropping: SpanExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: async () => {},
};

let provider: BasicTracerProvider | undefined;

export const tickqTracedSystem: SystemFactory = (redisUrl, label) => {
  if (!provider) {
    provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping)] });
    otel.trace.setGlobalTracerProvider(provider);
  }
  const flushing = provider;
  return tickqSystemWith(redisUrl, label, { otel, flush: () => flushing.forceFlush() });
};
