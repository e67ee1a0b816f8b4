// A recurring job's spec in words on the dashboard's Recurring page
// (src/dashboard/spec-words.ts): the common cron shapes and intervals said as
// an operator reads them, with the time zone; any other expression shown as is.
import { describe, expect, it } from "vitest";
import { specInWords } from "../../src/dashboard/spec-words.js";

const cron = (expression: string, timezone?: string) => specInWords({ cron: expression, job: "x", timezone });

describe("a schedule's spec in words", () => {
  it("says the common cron shapes in words, with the time zone (UTC by default)", () => {
    expect(cron("0 9 * * *", "Europe/Berlin")).toBe("every day at 09:00 Europe/Berlin");
    expect(cron("30 7 * * 1-5")).toBe("every weekday at 07:30 UTC");
    expect(cron("0 3 * * 0")).toBe("every Sunday at 03:00 UTC");
    expect(cron("0 3 * * 7")).toBe("every Sunday at 03:00 UTC");
    expect(cron("15 4 1 * *")).toBe("on day 1 of every month at 04:15 UTC");
    expect(cron("5 * * * *")).toBe("every hour at :05 UTC");
    expect(cron("*/5 * * * *")).toBe("every 5 min UTC");
    expect(cron("* * * * *")).toBe("every minute UTC");
    expect(cron("0 0 9 * * *")).toBe("every day at 09:00 UTC");
  });

  it("shows any other expression as it is", () => {
    expect(cron("0 9 * 1 *")).toBe("cron 0 9 * 1 * UTC");
    expect(cron("0 9,17 * * *", "Asia/Tokyo")).toBe("cron 0 9,17 * * * Asia/Tokyo");
    expect(cron("10 0 9 * * *")).toBe("cron 10 0 9 * * * UTC");
  });

  it("says an interval in its largest whole unit", () => {
    expect(specInWords({ every: 30_000, job: "x" })).toBe("every 30 s");
    expect(specInWords({ every: 300_000, job: "x" })).toBe("every 5 min");
    expect(specInWords({ every: 7_200_000, job: "x" })).toBe("every 2 h");
    expect(specInWords({ every: 86_400_000, job: "x" })).toBe("every 1 d");
    expect(specInWords({ every: 1_500, job: "x" })).toBe("every 1500 ms");
  });
});
