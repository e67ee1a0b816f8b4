// A misspelt option is a TickqError naming it and the known ones, never a
// silently ignored setting: enqueue options (`dely`), createTickq options,
// job and ordered definition keys, and a `schema` that is not a Standard
// Schema validator. Nothing is written for a refused enqueue.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createTickq, TickqError, type EnqueueOptions } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

function thrownBy(call: () => unknown): TickqError {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(TickqError);
    return error as TickqError;
  }
  throw new Error("expected a TickqError");
}

describe.each(adapterCases)("unknown options over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "args-options");

  it("an enqueue option tickq does not know is BAD_ARGS naming it and the known ones; nothing written", async () => {
    const tq = h.make({ mail: (_args: [string]) => {} });
    const call = tq.enqueue("mail", ["a@b.c"], { dely: 5_000 } as EnqueueOptions);
    await expect(call).rejects.toMatchObject({ code: "BAD_ARGS" });
    await expect(call).rejects.toThrow(
      /^Job "mail": unknown option "dely"; the options are name, args, jid, queue, delayMs, at, retry, kick, unique, expiresInMs, priority, group$/,
    );
    const bulk = tq.enqueueBulk([{ name: "mail", args: ["x"] }, { name: "mail", args: ["y"], qeue: "q" } as never]);
    await expect(bulk).rejects.toThrow(/unknown option "qeue"/);
    const ordered = h.make({}, { ordered: { idx: { perform: () => {} } } });
    await expect(ordered.enqueueOrdered("idx", { id: "a", payload: 1, dealyMs: 5 } as never)).rejects.toThrow(
      /^Ordered job "idx": unknown option "dealyMs"; the options are name, id, payload, score, delayMs$/,
    );
    expect(await h.redis.keys(`${h.prefix}*`)).toEqual([]);
  });

  it("createTickq refuses an option it does not know, naming it", () => {
    const error = thrownBy(() => createTickq({ redis: h.adapter, jobs: {}, maxRetry: 3 } as never));
    expect(error.code).toBe("BAD_OPTIONS");
    expect(error.message).toMatch(/^createTickq: unknown option "maxRetry"; the options are redis, jobs, .*maxRetries/);
  });

  it("a job definition key tickq does not know is refused at createTickq", () => {
    const error = thrownBy(() => h.make({ mail: { perform: () => {}, retries: 3 } as never }));
    expect(error).toMatchObject({ code: "BAD_OPTIONS" });
    expect(error.message).toMatch(
      /^job "mail": unknown option "retries"; the options are perform, queue, retry, .*schema, debounce, priority, group$/,
    );
    const ordered = thrownBy(() => h.make({}, { ordered: { idx: { perform: () => {}, sheme: {} } as never } }));
    expect(ordered.message).toMatch(/^ordered job "idx": unknown option "sheme"/);
  });

  it("a schema that is not a Standard Schema validator, or a definition without perform, is refused at createTickq", () => {
    expect(
      thrownBy(() => h.make({ mail: { perform: () => {}, schema: { parse: () => [] } } as never })).message,
    ).toMatch(/^job "mail": schema must be a Standard Schema validator/);
    expect(thrownBy(() => h.make({ idx: { schema: v.tuple([]) } as never })).message).toMatch(
      /^job "idx" must be a handler/,
    );
    expect(
      thrownBy(() => h.make({}, { ordered: { idx: { perform: () => {}, schema: "x" } as never } })).message,
    ).toMatch(/schema must be a Standard Schema/);
  });
});
