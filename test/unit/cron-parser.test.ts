// Who parses cron schedules: createTickq from "tickq" uses croner unless
// given another parser; the core and the edge entries (tickqWorker,
// tickqVercel) parse only with `cron`, and refuse a cron schedule without
// it at once, naming the fix. `every` schedules need no parser.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { tickqWorker } from "../../src/platforms/cloudflare/worker.js";
import { tickqVercel } from "../../src/platforms/vercel/handler.js";
import { createTickqCore } from "../../src/core.js";
import { createTickq, TickqError, type CronParser, type Schedules } from "../../src/index.js";
import { cron } from "../../src/recurring/cron.js";
import { everyTiming } from "../../src/recurring/timing.js";

const redis = { evalsha: async () => null, eval: async () => null };
const jobs = { report: (_args: [string]) => {}, ping: () => {} };
const nightly: Schedules<keyof typeof jobs> = {
  nightly: { cron: "0 3 * * *", timezone: "Europe/Berlin", job: "report", args: ["daily"] },
};
const heartbeat: Schedules<keyof typeof jobs> = { heartbeat: { every: 60_000, job: "ping" } };

const thrown = (make: () => unknown): unknown => {
  try {
    make();
  } catch (error) {
    return error;
  }
  return undefined;
};

describe("the cron parser", () => {
  const builders: [string, (options: { schedules: Schedules<keyof typeof jobs>; cron?: CronParser }) => unknown][] = [
    ["the core", (o) => createTickqCore({ redis, jobs, ...o })],
    ["tickqWorker", (o) => tickqWorker({ jobs, ...o })],
    ["tickqVercel", (o) => tickqVercel({ jobs, env: {}, ...o })],
  ];
  for (const [who, build] of builders) {
    it(`${who}: a cron schedule without \`cron\` is a BAD_OPTIONS naming the fix; with it, or with only \`every\`, it builds`, () => {
      const error = thrown(() => build({ schedules: { ...heartbeat, ...nightly } }));
      expect(error).toBeInstanceOf(TickqError);
      expect((error as TickqError).code).toBe("BAD_OPTIONS");
      expect((error as TickqError).message).toMatch(
        /^schedules\.nightly: .*import \{ cron \} from "tickq\/cron" and pass `cron`/,
      );
      expect(thrown(() => build({ schedules: { ...heartbeat, ...nightly }, cron }))).toBeUndefined();
      expect(thrown(() => build({ schedules: heartbeat }))).toBeUndefined();
    });
  }

  it('createTickq from "tickq" parses with croner by default, or with the parser it is given', async () => {
    expect(thrown(() => createTickq({ redis, jobs, schedules: nightly }))).toBeUndefined();
    // A parser of our own, whose slots are every 7 s, is the one asked.
    const asked: string[] = [];
    const own: CronParser = (pattern, timezone) => (asked.push(`${pattern} ${timezone}`), everyTiming(7_000));
    createTickq({ redis, jobs, schedules: nightly, cron: own });
    expect(asked).toEqual(["0 3 * * * Europe/Berlin"]);
    // croner's error for a bad expression still names the schedule.
    expect(
      (thrown(() => createTickq({ redis, jobs, schedules: { x: { cron: "61 * * * *", job: "ping" } } })) as Error)
        .message,
    ).toMatch(/^schedules\.x: invalid cron expression/);
  });

  it("a `cron` that is no function is a BAD_OPTIONS", () => {
    const error = thrown(() => createTickq({ redis, jobs, cron: "croner" as unknown as CronParser }));
    expect((error as TickqError).code).toBe("BAD_OPTIONS");
    expect((error as TickqError).message).toMatch(/cron must be a cron parser: import \{ cron \} from "tickq\/cron"/);
  });
});

describe("the cron fields the recurring page names", () => {
  const from = Date.UTC(2026, 10, 29);
  it.each([
    ["5 fields", "0 3 * * *", "2026-11-29T03:00:00.000Z"],
    ["6, seconds first", "30 0 3 * * *", "2026-11-29T03:00:30.000Z"],
    ["7, seconds first and a year last", "0 0 3 1 1 * 2027", "2027-01-01T03:00:00.000Z"],
  ])("%s parse", (_label, pattern, next) => {
    expect(new Date(cron(pattern, "UTC").after(from)!).toISOString()).toBe(next);
  });

  it.each([
    ["4 fields", "* * * *"],
    ["8 fields", "0 0 0 3 * * * 2030"],
  ])("%s are refused", (_label, pattern) => {
    expect(() => cron(pattern, "UTC")).toThrow(/five, six, or seven/);
  });

  it("docs/guides/recurring.md says 5, 6 or 7 fields", () => {
    const page = readFileSync("docs/guides/recurring.md", "utf8").replace(/\s+/g, " ");
    expect(page).toContain("(5 fields, 6 with seconds first, or 7 with seconds first and a year last)");
  });
});
