// A failed job's retry delay, in milliseconds, for plain and ordered jobs alike.
import { describe, expect, it } from "vitest";
import { type Backoffs, defaultBackoffMs, retryDelayMs } from "../../src/tick/backoff.js";

describe("the retry delay in milliseconds", () => {
  it("defaultBackoffMs is Sidekiq's (count**4 + 15 + rand(10 * (count + 1))) seconds, in whole ms", () => {
    for (const count of [0, 1, 5, 24]) {
      for (let i = 0; i < 200; i++) {
        const ms = defaultBackoffMs(count);
        expect(ms).toBeGreaterThanOrEqual((count ** 4 + 15) * 1000);
        expect(ms).toBeLessThan((count ** 4 + 15 + 10 * (count + 1)) * 1000);
        expect(ms % 1000).toBe(0);
      }
    }
  });

  it.each([
    ["backoffMs in ms", { backoffMs: () => 1_500 }, 1_500],
    ["backoffMs as a duration string", { backoffMs: () => "2m" as const }, 120_000],
    ["the deprecated backoff in seconds", { backoff: () => 3 }, 3_000],
    ["backoffMs before backoff", { backoffMs: () => 10, backoff: () => 3 }, 10],
  ] as [string, Backoffs, number][])("%s", (_label, backoffs, ms) => {
    expect(retryDelayMs(backoffs, 0, new Error("x"))).toBe(ms);
  });

  it.each([
    [
      "throws",
      {
        backoffMs: () => {
          throw new Error("bad");
        },
      },
    ],
    ["answers a negative number", { backoffMs: () => -5 }],
    ["answers an unreadable string", { backoffMs: () => "soon" as unknown as number }],
    ["answers NaN in seconds", { backoff: () => Number.NaN }],
  ] as [string, Backoffs][])("a backoff that %s falls back to Sidekiq's", (_label, backoffs) => {
    const ms = retryDelayMs(backoffs, 0, new Error("x"));
    expect(ms).toBeGreaterThanOrEqual(15_000);
    expect(ms).toBeLessThan(25_000);
  });
});
