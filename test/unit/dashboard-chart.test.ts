// The overview's daily chart (src/dashboard/chart.ts): `processed` already
// counts the jobs that failed, so a day's bar stands `processed` high, its
// failed part inside it, and the scale's peak is the most processed in a
// day — not processed + failed (a day of 514 runs, 8 failed, once read
// "522 / day").
import { describe, expect, it } from "vitest";
import { historyChart } from "../../src/dashboard/chart.js";

const rects = (svg: string) =>
  [...svg.matchAll(/<rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)" fill="(#\w+)"/g)].map((m) => ({
    top: Number(m[1]),
    height: Number(m[2]),
    fill: m[3],
  }));

describe("the overview's daily chart", () => {
  it("scales to the most processed in a day and stacks the failures inside that bar, not on top of it", () => {
    const svg = String(
      historyChart([
        { date: "2026-11-24", processed: 514, failed: 8 },
        { date: "2026-11-25", processed: 257, failed: 257 },
      ]),
    );
    expect(svg).toContain(">514 / day<");
    const [ok1, bad1, ok2, bad2] = rects(svg);
    // The busiest day fills the chart's height (120 - 14 px), its failed part 8/514 of it.
    expect(ok1!.height + bad1!.height).toBeCloseTo(106, 1);
    expect(bad1!.height).toBeCloseTo((106 * 8) / 514, 1);
    expect(bad1!.fill).toBe("#d9534f");
    // A day where every run failed: half as high, all of it red.
    expect(ok2!.height).toBeCloseTo(0, 5);
    expect(bad2!.height).toBeCloseTo(53, 1);
    expect(bad2!.top).toBeCloseTo(120 - 53, 1);
    expect(svg).toContain("<title>2026-11-24: 514 processed, 8 of them failed</title>");
  });
});
