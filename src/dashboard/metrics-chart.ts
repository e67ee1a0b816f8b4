// The Metrics page's charts as inline SVG, as chart.ts draws the daily one:
// no script, no image request. `runBars` stacks runs and failures per step;
// `percentileLines` draws p50 and p95 (ms) from run to run. Both read with one
// point (a lone run is a level across the chart) or thousands (merged to two
// pixels a point), and say so when nothing ran.
import { html } from "hono/html";
import type { Html } from "./layout.js";

const W = 600;
const H = 90;
const TOP = 12;
const BLUE = "#4f7be0";
const RED = "#d9534f";
const GREY = "#5b6475";

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
const round = (n: number) => (n >= 100 ? Math.round(n).toString() : n.toFixed(1));

function axis(label: string, fromMs: number, toMs: number): Html {
  return html`<text x="0" y="10" font-size="10" fill="${GREY}">${label}</text>
<text x="0" y="${H + 13}" font-size="10" fill="${GREY}" data-t="${fromMs}">${hhmm(fromMs)} UTC</text>
<text x="${W}" y="${H + 13}" font-size="10" fill="${GREY}" text-anchor="end" data-t="${toMs}">${hhmm(toMs)} UTC</text>`;
}

/** At most this many bars or points a chart: two pixels each at least; more are merged (thin). */
const MAX_DRAWN = W / 2;

/** Merges runs of `k` neighbouring points into one (the first's time): no chart draws more than MAX_DRAWN. */
export function thin<P extends { atMs: number }>(points: P[], merge: (group: P[]) => P): { points: P[]; k: number } {
  const k = Math.ceil(points.length / MAX_DRAWN);
  if (k <= 1) return { points, k: 1 };
  const out: P[] = [];
  for (let i = 0; i < points.length; i += k) out.push(merge(points.slice(i, i + k)));
  return { points: out, k };
}

const EMPTY = html`<text x="${W / 2}" y="${H / 2}" font-size="12" fill="${GREY}" text-anchor="middle">nothing ran in this window</text>`;

/** Runs (blue, succeeded) and failures (red) per step; a step with any run is at least 2 px high. */
export function runBars(all: { atMs: number; runs: number; failures: number }[], stepMs: number, what: string): Html {
  const { points, k } = thin(all, (g) => ({
    atMs: g[0]!.atMs,
    runs: g.reduce((n, p) => n + p.runs, 0),
    failures: g.reduce((n, p) => n + p.failures, 0),
  }));
  const per = (stepMs * k) / 60_000;
  const peak = Math.max(1, ...points.map((p) => p.runs));
  const step = W / Math.max(points.length, 1);
  const bar = Math.max(1, step - 1);
  const y = (n: number) => (n / peak) * (H - TOP);
  const last = points.at(-1)?.atMs ?? 0;
  return html`<svg viewBox="0 0 ${W} ${H + 16}" role="img" aria-label="runs and failures of ${what} per ${per} min">
${points.every((p) => p.runs === 0) ? EMPTY : ""}${points.map((p, i) => {
  if (p.runs === 0) return "";
  const x = (i * step).toFixed(1);
  const bad = p.failures > 0 ? Math.max(2, y(p.failures)) : 0;
  const ok = p.runs > p.failures ? Math.max(2, y(p.runs - p.failures)) : 0;
  return html`<g><title>${hhmm(p.atMs)}: ${p.runs} runs, ${p.failures} failed</title><rect x="${x}" y="${(H - ok).toFixed(1)}" width="${bar.toFixed(1)}" height="${ok.toFixed(1)}" fill="${BLUE}"/><rect x="${x}" y="${(H - ok - bad).toFixed(1)}" width="${bar.toFixed(1)}" height="${bad.toFixed(1)}" fill="${RED}"/></g>`;
})}
${axis(`${peak} runs / ${per} min`, points[0]?.atMs ?? 0, last + stepMs * k)}</svg>`;
}

type Pct = { atMs: number; p50: number | null; p95: number | null };
const most = (values: (number | null)[]) =>
  values.some((v) => v !== null) ? Math.max(...values.map((v) => v ?? 0)) : null;

/**
 * p50 (blue) and p95 (red) in ms per step, each point dotted. Steps where nothing ran are skipped,
 * the line drawn from one run to the next, so a name that ran a few times still reads as a line; a
 * lone point is a dashed level across the chart, its value written on it.
 */
export function percentileLines(all: Pct[], stepMs: number, what: string): Html {
  const { points, k } = thin(all, (g) => ({
    atMs: g[0]!.atMs,
    p50: most(g.map((p) => p.p50)),
    p95: most(g.map((p) => p.p95)),
  }));
  const peak = Math.max(1, ...points.map((p) => p.p95 ?? 0));
  const step = W / Math.max(points.length, 1);
  const y = (n: number) => (H - (n / peak) * (H - TOP)).toFixed(1);
  const valued = (pick: (p: Pct) => number | null) =>
    points.flatMap((p, i) => {
      const v = pick(p);
      return v === null ? [] : [{ x: (i * step + step / 2).toFixed(1), v, p }];
    });
  const line = (pick: (p: Pct) => number | null, color: string) => {
    const on = valued(pick);
    if (on.length === 0) return "";
    const d =
      on.length === 1
        ? `M0 ${y(on[0]!.v)}L${W} ${y(on[0]!.v)}`
        : on.map((o, i) => `${i ? "L" : "M"}${o.x} ${y(o.v)}`).join("");
    return html`<path d="${d}" fill="none" stroke="${color}" stroke-width="1.5"${on.length === 1 ? html` stroke-dasharray="4 3"` : ""}/>${on.map(
      (o) =>
        html`<circle cx="${o.x}" cy="${y(o.v)}" r="3" fill="${color}"><title>${hhmm(o.p.atMs)}: ${round(o.v)} ms</title></circle>`,
    )}${on.length === 1 ? html`<text x="${W}" y="${Number(y(on[0]!.v)) - 3}" font-size="10" fill="${color}" text-anchor="end">${round(on[0]!.v)} ms</text>` : ""}`;
  };
  const last = points.at(-1)?.atMs ?? 0;
  return html`<svg viewBox="0 0 ${W} ${H + 16}" role="img" aria-label="p50 and p95 of ${what} per ${(stepMs * k) / 60_000} min">
${valued((p) => p.p95).length === 0 ? EMPTY : ""}${line((p) => p.p50, BLUE)}${line((p) => p.p95, RED)}
${axis(`${round(peak)} ms`, points[0]?.atMs ?? 0, last + stepMs * k)}</svg>`;
}

export const LEGEND_RUNS = html`<span style="color:${BLUE}">■</span> succeeded <span style="color:${RED}">■</span> failed`;
export const LEGEND_LINES = html`<span style="color:${BLUE}">━</span> p50 <span style="color:${RED}">━</span> p95`;
