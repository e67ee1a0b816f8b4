// An ordered id's execution is a consumer span like a plain job's run: "process <name>", a child
// of the tick that ran it, with the id, fence, attempt and outcome, and a failure recorded.
import { beforeEach, expect, it } from "vitest";
import type { OrderedContext } from "../../../src/index.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { otel, registerOtel } from "../../helpers/otel.js";

const world = registerOtel();
const CONSUMER = 4;
const ERROR = 2;

const consumers = () =>
  world
    .spans()
    .filter((s) => s.kind === CONSUMER)
    .sort((a, b) => Number(a.attributes["tickq.job.attempt"]) - Number(b.attributes["tickq.job.attempt"]));

describeOverAdapters(adapterCases, "ordered traces over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-traces");
  beforeEach(() => world.exporter.reset());

  it("an execution is a process span, a child of its tick, with the id, fence and attempt; a failure is recorded", async () => {
    const fences: number[] = [];
    const tracer = otel.trace.getTracer("app");
    const tq = h.make(
      {},
      {
        telemetry: { otel },
        ordered: {
          ship: {
            backoff: () => 0,
            perform: async (_id: string, _payloads: unknown[], ctx: OrderedContext) => {
              fences.push(ctx.fence);
              tracer.startActiveSpan("inner", (span) => span.end());
              if (ctx.attempt === 1) throw new TypeError("carrier down");
            },
          },
        },
      },
    );
    await tq.enqueueOrdered("ship", { id: "s1", payload: { step: 1 } });
    expect(await tq.tick()).toMatchObject({ failed: 1 });
    expect(await tq.tick()).toMatchObject({ succeeded: 1 });

    const runs = consumers();
    expect(runs).toHaveLength(2);
    expect(runs.map((s) => s.name)).toEqual(["process ship", "process ship"]);
    expect(runs[0]!.attributes).toEqual({
      "messaging.system": "tickq",
      "messaging.operation.name": "process",
      "messaging.operation.type": "process",
      "messaging.destination.name": "ship",
      "messaging.message.id": "s1",
      "tickq.job.name": "ship",
      "tickq.job.attempt": 1,
      "tickq.ordered.fence": fences[0],
      "tickq.job.outcome": "retry",
      "error.type": "TypeError",
    });
    expect(runs[0]!.status).toEqual({ code: ERROR, message: "TypeError: carrier down" });
    expect(runs[0]!.events.map((e) => e.name)).toEqual(["exception"]);
    expect(runs[1]!.attributes).toMatchObject({
      "tickq.job.attempt": 2,
      "tickq.ordered.fence": fences[1],
      "tickq.job.outcome": "succeeded",
    });
    expect(runs[1]!.status.code).not.toBe(ERROR);

    // Each run's parent is the tick that ran it; the handler's own span is the run's child.
    const ticks = world.spans().filter((s) => s.name === "tick");
    for (const run of runs) {
      const parent = ticks.find((t) => t.spanContext().spanId === run.parentSpanContext?.spanId);
      expect(parent).toBeDefined();
      expect(run.spanContext().traceId).toBe(parent!.spanContext().traceId);
    }
    const inner = world.spans().filter((s) => s.name === "inner");
    expect(inner.map((s) => s.parentSpanContext?.spanId).sort()).toEqual(
      runs.map((s) => s.spanContext().spanId).sort(),
    );
  });

  it("an id out of retries ends dead, its span in error", async () => {
    const tq = h.make(
      {},
      {
        telemetry: { otel },
        ordered: {
          once: {
            retry: false,
            perform: () => {
              throw new RangeError("never");
            },
          },
        },
      },
    );
    await tq.enqueueOrdered("once", { id: "x", payload: 1 });
    await tq.tick();
    const [run] = consumers();
    expect(run!.attributes).toMatchObject({ "tickq.job.outcome": "dead", "error.type": "RangeError" });
  });

  it("without the telemetry option an execution makes no span", async () => {
    const tq = h.make({}, { ordered: { quiet: { perform: () => {} } } });
    await tq.enqueueOrdered("quiet", { id: "q", payload: 1 });
    expect(await tq.tick()).toMatchObject({ succeeded: 1 });
    expect(world.spans()).toEqual([]);
  });
});
