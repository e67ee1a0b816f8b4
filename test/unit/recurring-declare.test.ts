// Bad schedules are refused at createTickq, naming the schedule; good ones
// get the slots croner computes, whatever the missed policy.
import { describe, expect, it } from "vitest";
import { createTickq, TickqError, type Schedules } from "../../src/index.js";
import { declareRecurring } from "../../src/recurring/declare.js";
import { planSlots } from "../../src/recurring/slots.js";
import { cron } from "../../src/recurring/cron.js";
import { everyTiming } from "../../src/recurring/timing.js";

const redis = { evalsha: async () => null, eval: async () => null };
const jobs = { report: (_args: [string]) => {}, ping: () => {} };
const make = (schedules: Schedules) => () =>
  createTickq({ redis, jobs, schedules: schedules as Schedules<keyof typeof jobs> });

describe("declaring schedules", () => {
  const cases: [string, Schedules, RegExp][] = [
    [
      "an invalid cron expression",
      { nightly: { cron: "61 3 * * *", job: "report" } },
      /schedules\.nightly: invalid cron expression "61 3 \* \* \*"/,
    ],
    [
      "a cron of the wrong shape",
      { nightly: { cron: "every day", job: "report" } },
      /schedules\.nightly: invalid cron expression/,
    ],
    [
      "an unknown time zone",
      { nightly: { cron: "0 3 * * *", timezone: "Mars/Olympus", job: "report" } },
      /schedules\.nightly: unknown time zone "Mars\/Olympus"/,
    ],
    [
      "an unknown job",
      { nightly: { cron: "0 3 * * *", job: "sendReport" as "report" } },
      /schedules\.nightly: unknown job "sendReport".*registered: report, ping/,
    ],
    [
      "both cron and every",
      { both: { cron: "* * * * *", every: 1_000, job: "ping" } as never },
      /schedules\.both: give either `cron` or `every`, not both/,
    ],
    ["neither cron nor every", { none: { job: "ping" } as never }, /schedules\.none: needs `cron`/],
    [
      "an interval under a second",
      { fast: { every: 10, job: "ping" } },
      /schedules\.fast: every must be a whole number of ms ≥ 1,000/,
    ],
    [
      "a bad missed policy",
      { x: { every: 60_000, job: "ping", missed: "some" as "all" } },
      /schedules\.x: missed must be/,
    ],
    ["a bad cap", { x: { every: 60_000, job: "ping", missed: "all", maxMissed: 0 } }, /schedules\.x: maxMissed/],
    ["a queue with spaces", { x: { every: 60_000, job: "ping", queue: "a b" } }, /schedules\.x: queue must be/],
    ["a name with spaces", { "my job": { every: 60_000, job: "ping" } }, /schedules\.my job: a schedule name is/],
    [
      "args Redis cannot read",
      { x: { every: 60_000, job: "ping", args: ["\ud800"] } },
      /schedules\.x: .*lone UTF-16 surrogate/,
    ],
    [
      "a cron that never runs again",
      { x: { cron: "0 0 1 1 * 2001", job: "ping" } },
      /schedules\.x: (cron "0 0 1 1 \* 2001" never runs again|invalid cron)/,
    ],
  ];
  for (const [what, schedules, message] of cases) {
    it(`refuses ${what} with TickqError BAD_OPTIONS`, () => {
      const error = (() => {
        try {
          make(schedules)();
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(TickqError);
      expect((error as TickqError).code).toBe("BAD_OPTIONS");
      expect((error as TickqError).message).toMatch(message);
    });
  }

  it("accepts good ones; the digest changes with any spec and not with declaration order", () => {
    const a = declareRecurring(
      {
        r: { cron: "0 3 * * *", timezone: "Europe/Berlin", job: "report", args: ["daily"] },
        p: { every: 30_000, job: "ping" },
      },
      jobs,
      cron,
    );
    const b = declareRecurring(
      {
        p: { every: 30_000, job: "ping" },
        r: { cron: "0 3 * * *", timezone: "Europe/Berlin", job: "report", args: ["daily"] },
      },
      jobs,
      cron,
    );
    const c = declareRecurring(
      {
        p: { every: 30_000, job: "ping" },
        r: { cron: "0 3 * * *", timezone: "Europe/Berlin", job: "report", args: ["weekly"] },
      },
      jobs,
      cron,
    );
    expect(a.digest).toBe(b.digest);
    expect(a.digest).not.toBe(c.digest);
    expect(a.byName.get("r")!.timingFp).toBe(c.byName.get("r")!.timingFp); // args changed, timing did not
    expect(declareRecurring(undefined, jobs, undefined).digest).toBe("");
    expect(JSON.parse(a.byName.get("r")!.jobFor(1_700_000_000_000))).toEqual({
      class: "report",
      args: ["daily"],
      jid: "r:1700000000000",
      queue: "default",
      retry: true,
      schedule: "r",
    });
  });
});

describe("slots", () => {
  const at = (iso: string) => Date.parse(iso);
  it("every: multiples of the interval since the epoch", () => {
    const t = everyTiming(30_000);
    expect(t.after(at("2030-01-01T00:00:10Z"))).toBe(at("2030-01-01T00:00:30Z"));
    expect(t.latest(3, at("2030-01-01T00:00:00Z"), at("2030-01-01T00:02:10Z"))).toEqual(
      ["00:01:00", "00:01:30", "00:02:00"].map((s) => at(`2030-01-01T${s}Z`)),
    );
  });

  it("cron in Europe/Berlin: 02:30 runs once on the spring-forward day (at 03:00, after the gap) and once on the fall-back day", () => {
    const t = cron("30 2 * * *", "Europe/Berlin");
    expect(t.latest(10, at("2026-03-28T12:00:00Z"), at("2026-03-30T12:00:00Z"))).toEqual([
      at("2026-03-29T01:00:00Z"),
      at("2026-03-30T00:30:00Z"),
    ]);
    expect(t.latest(10, at("2026-10-24T12:00:00Z"), at("2026-10-26T12:00:00Z"))).toEqual([
      at("2026-10-25T00:30:00Z"),
      at("2026-10-26T01:30:00Z"),
    ]);
  });

  it("missed policies after an hour without ticks: latest runs the last slot, all each one (capped), none skips to the next", () => {
    const declare = (missed: "latest" | "all" | "none", maxMissed?: number) =>
      declareRecurring({ s: { cron: "*/5 * * * *", job: "ping", missed, maxMissed } }, jobs, cron).byName.get("s")!;
    const due = at("2030-01-01T10:05:00Z");
    const now = at("2030-01-01T11:02:30Z");
    const next = at("2030-01-01T11:05:00Z");
    expect(planSlots(declare("latest"), due, null, now, new Map())).toEqual({
      slots: [at("2030-01-01T11:00:00Z")],
      next,
    });
    expect(planSlots(declare("all"), due, null, now, new Map()).slots).toHaveLength(12);
    expect(planSlots(declare("all", 3), due, null, now, new Map()).slots).toEqual(
      ["10:50", "10:55", "11:00"].map((s) => at(`2030-01-01T${s}:00Z`)),
    );
    expect(planSlots(declare("none"), due, null, now, new Map())).toEqual({ slots: [], next });
    // on time, every policy runs the one slot due
    const onTime = at("2030-01-01T10:05:20Z");
    for (const missed of ["latest", "all", "none"] as const) {
      expect(planSlots(declare(missed), due, null, onTime, new Map()).slots).toEqual([due]);
    }
    // a slot at or before the last one claimed is never planned again
    expect(planSlots(declare("all"), due, at("2030-01-01T10:55:00Z"), now, new Map()).slots).toEqual([
      at("2030-01-01T11:00:00Z"),
    ]);
  });
});
