// The histogram buckets are one list in TypeScript and in Lua (a count the
// script files under bucket K is read back as BUCKET_BOUNDS_MS[K - 1]), and
// percentiles interpolate linearly inside the bucket they fall in, as
// Prometheus' histogram_quantile does.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BUCKET_BOUNDS_MS, BUCKET_COUNT, quantileOf } from "../../src/metrics/buckets.js";
import { bucketOf, metricsSection } from "../../src/metrics/section.js";
import { metricsSettings } from "../../src/metrics/settings.js";

const counts = (pairs: [number, number][]) => {
  const out = new Array(BUCKET_COUNT).fill(0);
  for (const [k, n] of pairs) out[k] = n;
  return out;
};

describe("metric buckets", () => {
  it("Lua's bounds are TypeScript's", () => {
    const lua = readFileSync(new URL("../../src/lua/lib/metrics/record-runs.lua", import.meta.url), "utf8");
    const list = /local METRIC_BOUNDS = \{([^}]*)\}/.exec(lua)?.[1];
    expect(list?.split(",").map((n) => Number(n.trim()))).toEqual([...BUCKET_BOUNDS_MS]);
  });

  it("files a value under the first bucket whose bound holds it, counted from 1 as Lua counts", () => {
    expect([0, 5, 6, 10, 11, 3_600_000, 3_600_001].map(bucketOf)).toEqual([1, 1, 2, 2, 3, 16, 17]);
  });

  it("interpolates inside the bucket a quantile falls in", () => {
    // 10 runs in (10, 25]: the median is halfway, 17.5 ms.
    expect(quantileOf(counts([[2, 10]]), 0.5)).toBe(17.5);
    // 90 runs in [0, 5], 10 in (100, 250]: p95 is halfway through the second bucket.
    expect(
      quantileOf(
        counts([
          [0, 90],
          [5, 10],
        ]),
        0.95,
      ),
    ).toBe(175);
    expect(
      quantileOf(
        counts([
          [0, 90],
          [5, 10],
        ]),
        0.5,
      ),
    ).toBeCloseTo(2.7778, 3);
  });

  it("answers the last bound in the +Inf bucket and null for no runs", () => {
    expect(quantileOf(counts([[BUCKET_COUNT - 1, 3]]), 0.99)).toBe(3_600_000);
    expect(quantileOf(counts([]), 0.5)).toBeNull();
  });
});

describe("an ack's metrics section", () => {
  it("files every run time and wait under bucketOf's bucket, up to and past every bound", () => {
    const job = { raw: "{}", queue: "default", resurrections: 0, interruptions: 0 } as never;
    const around = BUCKET_BOUNDS_MS.flatMap((bound) => [bound - 1, bound, bound + 1, bound + 499, bound + 500]);
    const tabled = [0, 0.4, 0.6, 4.5, 5, 5.5, 6, 999, 1_000, 1_000.4, 1_000.6];
    const values = [...tabled, 1_001, 2_500, 3_600_001, 1e12, ...around];
    for (const ms of values) {
      const outcome = { kind: "succeeded" as const, job, ran: { name: "x", durationMs: ms, waitMs: ms } };
      const section = metricsSection([outcome], 0, metricsSettings({ retentionMs: 3_600_000 }))!;
      const bucket = `${bucketOf(Math.round(ms))} 1`;
      expect([section.entries[0]!.durations, section.entries[0]!.waits]).toEqual([bucket, bucket]);
    }
  });
});
