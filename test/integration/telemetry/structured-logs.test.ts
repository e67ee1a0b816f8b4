import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { OrderedContext } from "../../../src/index.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

/** A real pino writing JSON lines into an array. */
function pinoLines(): { logger: ReturnType<typeof pino>; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: "info" }, stream), lines };
}

describeOverAdapters(adapterCases, "structured logs over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "logs");

  it("the failure line carries jid, name, queue, attempt and the error as fields", async () => {
    const { logger, lines } = pinoLines();
    const tq = h.make(
      {
        flaky: {
          backoff: () => 0,
          perform: () => {
            throw new TypeError("smtp down");
          },
        },
      },
      { structuredLogger: logger },
    );
    const jid = await tq.enqueue("flaky", ["x"], { queue: "mail" });
    await h
      .make(
        {
          flaky: {
            backoff: () => 0,
            perform: () => {
              throw new TypeError("smtp down");
            },
          },
        },
        { structuredLogger: logger, queues: ["mail"] },
      )
      .tick();
    const failure = lines.find((l) => String(l.msg).includes("failed (attempt 1)"))!;
    expect(failure).toMatchObject({
      level: 40,
      jid,
      name: "flaky",
      queue: "mail",
      attempt: 1,
      outcome: "retry",
      errorClass: "TypeError",
    });
    expect(failure.err).toMatchObject({ type: "TypeError", message: "smtp down" });
    expect(typeof failure.retryAt).toBe("string");
    expect(h.logged).toEqual([]); // the text logger got nothing
  });

  it("a handler's ctx.log lines carry the job as fields, not as text in the message", async () => {
    const { logger, lines } = pinoLines();
    const tq = h.make(
      { report: async (_args: unknown[], ctx) => ctx.log.warn("slow upstream", { ms: 900 }) },
      { structuredLogger: logger },
    );
    const jid = await tq.enqueue("report", []);
    await tq.tick();
    expect(lines.find((l) => l.msg === "slow upstream")).toMatchObject({
      level: 40,
      jid,
      name: "report",
      queue: "default",
      attempt: 1,
      details: [{ ms: 900 }],
    });
  });

  it("an ordered run's ctx.log lines carry name, id, fence and attempt as fields", async () => {
    const { logger, lines } = pinoLines();
    const fences: number[] = [];
    const tq = h.make(
      {},
      {
        structuredLogger: logger,
        ordered: {
          ship: {
            perform: (_id: string, _payloads: unknown[], ctx: OrderedContext) => {
              fences.push(ctx.fence);
              ctx.log.info("label printed", new Error("printer jam"));
            },
          },
        },
      },
    );
    await tq.enqueueOrdered("ship", { id: "s1", payload: 1 });
    await tq.tick();
    const line = lines.find((l) => l.msg === "label printed");
    expect(line).toMatchObject({ level: 30, name: "ship", id: "s1", fence: fences[0], attempt: 1 });
    expect(line!.err).toMatchObject({ message: "printer jam" });
    expect(h.logged).toEqual([]);
  });

  it("with the text logger an ordered run's ctx.log line names the execution in its text", async () => {
    const fences: number[] = [];
    const tq = h.make(
      {},
      {
        ordered: {
          ship: {
            perform: (_id: string, _payloads: unknown[], ctx: OrderedContext) => {
              fences.push(ctx.fence);
              ctx.log.warn("label printed");
            },
          },
        },
      },
    );
    await tq.enqueueOrdered("ship", { id: "s1", payload: 1 });
    await tq.tick();
    expect(h.logged).toContain(`[ship s1 #${fences[0]}] label printed`);
  });

  it("a job out of retries logs at error level with outcome dead", async () => {
    const { logger, lines } = pinoLines();
    const tq = h.make(
      {
        fatal: {
          retry: false,
          perform: () => {
            throw new RangeError("never");
          },
        },
      },
      { structuredLogger: logger },
    );
    const jid = await tq.enqueue("fatal", []);
    await tq.tick();
    expect(lines.find((l) => l.jid === jid && l.outcome === "dead")).toMatchObject({
      level: 50,
      name: "fatal",
      attempt: 1,
      errorClass: "RangeError",
    });
  });
});

describe("the structuredLogger option", () => {
  it("refuses a logger without pino's methods", async () => {
    const { createTickq } = await import("../../../src/index.js");
    const redis = { evalsha: async () => null } as never;
    expect(() => createTickq({ redis, jobs: {}, structuredLogger: { info() {} } as never })).toThrow(
      /structuredLogger needs info, warn and error/,
    );
  });
});
