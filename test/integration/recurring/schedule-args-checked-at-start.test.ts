// A recurring schedule's args are checked once, when createTickq declares
// it, against its job's schema and for what JSON cannot carry: a bad
// schedule fails at start (BAD_ARGS naming the schedule and the path), not
// at every slot; the slots' jobs carry the schema's output. createTickq
// cannot wait, so a job with an asynchronous schema cannot back a schedule.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { TickqError, type StandardSchemaV1 } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { MINUTE, QUIET, setClock } from "./clock.js";

const START = Date.UTC(2030, 0, 1, 10, 0, 0);
const reportArgs = v.tuple([v.object({ to: v.string("expected string"), format: v.optional(v.string(), "pdf") })]);
const asyncArgs: StandardSchemaV1 = {
  "~standard": { version: 1, vendor: "x", validate: async (value) => ({ value }) },
};

function thrownBy(call: () => unknown): TickqError {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(TickqError);
    return error as TickqError;
  }
  throw new Error("expected a TickqError");
}

describe.each(adapterCases)("schedule args over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "args-schedule");
  const jobs = {
    report: { schema: reportArgs, perform: () => {} },
    later: { schema: asyncArgs, perform: () => {} },
    plain: () => {},
  };

  it("args the job's schema refuses fail createTickq, naming the schedule and the path", () => {
    const error = thrownBy(() =>
      h.make(jobs, { schedules: { nightly: { every: MINUTE, job: "report", args: [{ to: 7 }] } } }),
    );
    expect(error).toMatchObject({
      code: "BAD_ARGS",
      message: 'schedules.nightly (job "report"): args[0].to: expected string',
    });
    expect(thrownBy(() => h.make(jobs, { schedules: { nightly: { every: MINUTE, job: "report" } } })).message).toMatch(
      /schedules\.nightly .*args(\[0\])?: /,
    );
  });

  it("args JSON cannot carry fail createTickq for a job without a schema", () => {
    const error = thrownBy(() =>
      h.make(jobs, { schedules: { s: { every: MINUTE, job: "plain", args: [Number.NaN] } } }),
    );
    expect(error).toMatchObject({
      code: "BAD_ARGS",
      message: 'schedules.s (job "plain"): args[0]: NaN (JSON has no NaN; it would arrive as null)',
    });
  });

  it("a job whose schema is asynchronous cannot back a schedule: BAD_OPTIONS saying why", () => {
    const error = thrownBy(() => h.make(jobs, { schedules: { s: { every: MINUTE, job: "later", args: [] } } }));
    expect(error.code).toBe("BAD_OPTIONS");
    expect(error.message).toMatch(/^schedules\.s: job "later"'s schema validates asynchronously/);
  });

  it("each slot's job carries the schema's output", async () => {
    const seen: unknown[] = [];
    const tq = h.make(
      { report: { schema: reportArgs, perform: (args: unknown[]) => void seen.push(args) } },
      {
        schedules: { nightly: { every: MINUTE, job: "report", args: [{ to: "ops@x.y" }] } },
        logger: QUIET,
      },
    );
    await setClock(h.redis, [tq], START + 1_000);
    await tq.tick();
    await setClock(h.redis, [tq], START + MINUTE + 1_000);
    expect(await tq.tick()).toMatchObject({ recurring: 1 });
    await tq.tick();
    expect(seen).toEqual([[{ to: "ops@x.y", format: "pdf" }]]);
  });
});
