import { beforeEach, describe, expect, it } from "vitest";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { TickqError } from "../../../src/index.js";
import type { OtelApi } from "../../../src/telemetry/otel.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { otel, registerOtel } from "../../helpers/otel.js";

const world = registerOtel();
const PRODUCER = 3;
const CONSUMER = 4;
const ERROR = 2;

const byKind = (kind: number) => world.spans().filter((s) => s.kind === kind);
const traceOf = (s: ReadableSpan) => s.spanContext().traceId;

describe("the OpenTelemetry API module", () => {
  it("fits the shape tickq's telemetry option declares", () => {
    const api: OtelApi = otel;
    expect(typeof api.trace.getTracer).toBe("function");
  });
});

describeOverAdapters(adapterCases, "traces over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "traces");
  beforeEach(() => world.exporter.reset());

  it("a job's consumer span continues its enqueue's trace, with messaging attributes, linked to the producer and the tick", async () => {
    const tq = h.make({ email: () => {} }, { telemetry: { otel }, queues: ["mail"] });
    const jid = await tq.enqueue("email", ["a@b.c"], { queue: "mail" });
    expect(await tq.tick()).toMatchObject({ succeeded: 1 });

    const [send] = byKind(PRODUCER);
    const [run] = byKind(CONSUMER);
    expect(send).toBeDefined();
    expect(run).toBeDefined();
    expect(send!.name).toBe("send mail");
    expect(send!.attributes).toMatchObject({
      "messaging.system": "tickq",
      "messaging.operation.name": "send",
      "messaging.operation.type": "send",
      "messaging.destination.name": "mail",
      "messaging.message.id": jid,
    });
    expect(run!.name).toBe("process mail");
    expect(traceOf(run!)).toBe(traceOf(send!));
    expect(run!.parentSpanContext?.spanId).toBe(send!.spanContext().spanId);
    expect(run!.attributes).toMatchObject({
      "messaging.system": "tickq",
      "messaging.operation.name": "process",
      "messaging.operation.type": "process",
      "messaging.destination.name": "mail",
      "messaging.message.id": jid,
      "tickq.job.name": "email",
      "tickq.job.attempt": 1,
      "tickq.job.outcome": "succeeded",
    });
    const ticks = world.spans().filter((s) => s.name === "tick" && s.attributes["tickq.tick.succeeded"] === 1);
    expect(ticks).toHaveLength(1);
    expect(run!.links.map((l) => l.context.spanId).sort()).toEqual(
      [send!.spanContext().spanId, ticks[0]!.spanContext().spanId].sort(),
    );
  });

  it("a retried job's runs stay in the enqueue's trace; the failed run records the error", async () => {
    let runs = 0;
    const tq = h.make(
      {
        flaky: {
          backoff: () => 0,
          perform: () => {
            if (++runs === 1) throw new TypeError("smtp down");
          },
        },
      },
      { telemetry: { otel } },
    );
    await tq.enqueue("flaky", []);
    await tq.tick();
    await tq.tick();
    expect(runs).toBe(2);
    const [send] = byKind(PRODUCER);
    const runsSpans = byKind(CONSUMER).sort(
      (a, b) => Number(a.attributes["tickq.job.attempt"]) - Number(b.attributes["tickq.job.attempt"]),
    );
    expect(runsSpans.map(traceOf)).toEqual([traceOf(send!), traceOf(send!)]);
    expect(runsSpans.map((s) => s.attributes["tickq.job.outcome"])).toEqual(["retry", "succeeded"]);
    expect(runsSpans[0]!.status).toEqual({ code: ERROR, message: "TypeError: smtp down" });
    expect(runsSpans[0]!.attributes["error.type"]).toBe("TypeError");
    expect(runsSpans[0]!.events.map((e) => e.name)).toEqual(["exception"]);
    expect(runsSpans[1]!.status.code).not.toBe(ERROR);
  });

  it("a handler's own spans are children of its job's span", async () => {
    const tracer = otel.trace.getTracer("app");
    const tq = h.make(
      { work: async () => tracer.startActiveSpan("inner", (span) => span.end()) },
      { telemetry: { otel } },
    );
    await tq.enqueue("work", []);
    await tq.tick();
    const inner = world.spans().find((s) => s.name === "inner")!;
    const [run] = byKind(CONSUMER);
    expect(inner.parentSpanContext?.spanId).toBe(run!.spanContext().spanId);
    expect(traceOf(inner)).toBe(traceOf(run!));
  });

  it("enqueueBulk makes one send span whose context every job carries", async () => {
    const tq = h.make({ a: () => {} }, { telemetry: { otel } });
    await tq.enqueueBulk([
      { name: "a", args: [1] },
      { name: "a", args: [2] },
      { name: "a", args: [3] },
    ]);
    await tq.tick();
    const sends = byKind(PRODUCER);
    expect(sends).toHaveLength(1);
    expect(sends[0]!.attributes["messaging.batch.message_count"]).toBe(3);
    const parents = byKind(CONSUMER).map((s) => s.parentSpanContext?.spanId);
    expect(parents).toEqual([
      sends[0]!.spanContext().spanId,
      sends[0]!.spanContext().spanId,
      sends[0]!.spanContext().spanId,
    ]);
  });

  it("a job stores its trace context as Sidekiq's OpenTelemetry instrumentation does (a top-level traceparent)", async () => {
    const tq = h.make({ a: () => {} }, { telemetry: { otel } });
    await tq.enqueue("a", [1]);
    const [stored] = await h.redis.lrange(`${h.prefix}queue:default`, 0, -1);
    const job = JSON.parse(stored!) as Record<string, unknown>;
    const send = byKind(PRODUCER)[0]!.spanContext();
    expect(job.traceparent).toBe(`00-${send.traceId}-${send.spanId}-01`);
    expect(job).toMatchObject({ class: "a", args: [1], queue: "default", retry: true });
  });

  it("without the telemetry option a job carries no trace field and no span is made", async () => {
    const tq = h.make({ a: () => {} });
    await tq.enqueue("a", [1]);
    const [stored] = await h.redis.lrange(`${h.prefix}queue:default`, 0, -1);
    expect(stored).not.toContain("traceparent");
    await tq.tick();
    expect(world.spans()).toEqual([]);
  });

  it("a malformed traceparent in a job (another client's) is ignored: the job runs in a trace of its own", async () => {
    const tq = h.make({ a: () => {} }, { telemetry: { otel } });
    await h.redis.lpush(
      `${h.prefix}queue:default`,
      JSON.stringify({ class: "a", args: [], jid: "j1", queue: "default", traceparent: "00-zz-yy-01" }),
    );
    expect(await tq.tick()).toMatchObject({ succeeded: 1 });
    const [run] = byKind(CONSUMER);
    expect(run!.attributes["messaging.message.id"]).toBe("j1");
    expect(run!.links).toHaveLength(1); // the tick only
  });
});

describe("the telemetry option", () => {
  it("refuses something that is not the OpenTelemetry API module, naming what to pass", async () => {
    const { createTickq } = await import("../../../src/index.js");
    const redis = { evalsha: async () => null, eval: async () => null } as never;
    const make = () => createTickq({ redis, jobs: {}, telemetry: { otel: {} as OtelApi } });
    expect(make).toThrow(TickqError);
    expect(make).toThrow(/telemetry\.otel must be the OpenTelemetry API module/);
  });
});
