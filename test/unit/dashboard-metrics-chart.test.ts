// The Metrics page's and the overview's charts (src/dashboard/metrics-chart.ts)
// read with one point or a thousand: a job name that ran once in the window
// is a level across the chart with its value written on it, not a lone dot;
// runs between empty steps are joined; a thousand steps are merged so no
// chart draws more than two pixels a point; an empty window says so.
import { describe, expect, it } from "vitest";
import { percentileLines, runBars } from "../../src/dashboard/metrics-chart.js";

const MIN = 60_000;
const paths = (svg: string) => [...svg.matchAll(/<path d="([^"]*)"/g)].map((m) => m[1]!);
const steps = <T>(n: number, at: (i: number) => T) =>
  Array.from({ length: n }, (_, i) => ({ atMs: i * MIN, ...at(i) }));

describe("the metrics charts", () => {
  it("draws a lone run as a dashed level across the whole chart, its value written on it", () => {
    const svg = String(
      percentileLines(
        steps(60, (i) => (i === 30 ? { p50: 40, p95: 80 } : { p50: null, p95: null })),
        MIN,
        "x",
      ),
    );
    expect(paths(svg)).toEqual(["M0 51.0L600 51.0", "M0 12.0L600 12.0"]);
    expect(svg).toContain('stroke-dasharray="4 3"');
    expect(svg).toContain(">80.0 ms</text>");
    expect(svg).not.toContain("nothing ran");
  });

  it("joins runs separated by empty steps into one line", () => {
    const svg = String(
      percentileLines(
        steps(60, (i) => (i % 20 === 0 ? { p50: 10 + i, p95: 20 + i } : { p50: null, p95: null })),
        MIN,
        "x",
      ),
    );
    // three runs, one path each for p50 and p95: M then two L, no gap
    for (const d of paths(svg)) expect(d.match(/[ML]/g)).toEqual(["M", "L", "L"]);
    expect(svg.match(/<circle/g)).toHaveLength(6);
  });

  it("merges a thousand steps to at most 300 bars and keeps every run counted", () => {
    const points = steps(1000, (i) => ({ runs: i % 7, failures: i % 7 === 6 ? 1 : 0 }));
    const svg = String(runBars(points, MIN, "x"));
    const titles = [...svg.matchAll(/<title>[^<]*: (\d+) runs, (\d+) failed<\/title>/g)];
    expect(titles.length).toBeLessThanOrEqual(300);
    expect(titles.reduce((n, m) => n + Number(m[1]), 0)).toBe(points.reduce((n, p) => n + p.runs, 0));
    expect(titles.reduce((n, m) => n + Number(m[2]), 0)).toBe(points.reduce((n, p) => n + p.failures, 0));
    expect(svg).toContain("per 4 min");
  });

  it("draws one run among a thousand at least 2 px high, and says when nothing ran", () => {
    const svg = String(
      runBars(
        steps(60, (i) => ({ runs: i === 0 ? 1000 : i === 59 ? 1 : 0, failures: 0 })),
        MIN,
        "x",
      ),
    );
    const heights = [...svg.matchAll(/height="([\d.]+)" fill="#4f7be0"/g)].map((m) => Number(m[1]));
    expect(Math.min(...heights)).toBeGreaterThanOrEqual(2);
    expect(
      String(
        runBars(
          steps(60, () => ({ runs: 0, failures: 0 })),
          MIN,
          "x",
        ),
      ),
    ).toContain("nothing ran in this window");
    expect(
      String(
        percentileLines(
          steps(60, () => ({ p50: null, p95: null })),
          MIN,
          "x",
        ),
      ),
    ).toContain("nothing ran in this window");
  });
});
