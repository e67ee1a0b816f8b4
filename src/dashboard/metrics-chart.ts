// The Metrics page's charts as inline SVG, as chart.ts draws the daily one:
// no script, no image request. `bars` stacks runs and failures per step;
// `lines` draws p50 and p95 (ms) per step, a gap where nothing ran.
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
<text x="0" y="${H + 13}" font-size="10" fill="${GREY}">${hhmm(fromMs)}</text>
<text x="${W}" y="${H + 13}" font-size="10" fill="${GREY}" text-anchor="end">${hhmm(toMs)} UTC</text>`;
}

/** Runs (blue, succeeded) and failures (red) per step. */
export function runBars(
  points: { atMs: number; runs: number; failures: number }[],
  stepMs: number,
  what: string,
): Html {
  const peak = Math.max(1, ...points.map((p) => p.runs));
  const step = W / Math.max(points.length, 1);
  const bar = Math.max(1, step - 1);
  const y = (n: number) => (n / peak) * (H - TOP);
  const last = points.at(-1)?.atMs ?? 0;
  return html`<svg viewBox="0 0 ${W} ${H + 16}" role="img" aria-label="runs and failures of ${what} per ${stepMs / 60_000} min">
${points.map((p, i) => {
  if (p.runs === 0) return "";
  const x = (i * step).toFixed(1);
  const ok = y(p.runs - p.failures);
  const bad = y(p.failures);
  return html`<g><title>${hhmm(p.atMs)}: ${p.runs} runs, ${p.failures} failed</title><rect x="${x}" y="${(H - ok).toFixed(1)}" width="${bar.toFixed(1)}" height="${ok.toFixed(1)}" fill="${BLUE}"/><rect x="${x}" y="${(H - ok - bad).toFixed(1)}" width="${bar.toFixed(1)}" height="${bad.toFixed(1)}" fill="${RED}"/></g>`;
})}
${axis(`${peak} runs / ${stepMs / 60_000} min`, points[0]?.atMs ?? 0, last + stepMs)}</svg>`;
}

/** p50 (blue) and p95 (red) in ms per step; steps with no runs leave a gap. */
export function percentileLines(
  points: { atMs: number; p50: number | null; p95: number | null }[],
  stepMs: number,
  what: string,
): Html {
  const peak = Math.max(1, ...points.map((p) => p.p95 ?? 0));
  const step = W / Math.max(points.length, 1);
  const y = (n: number) => (H - (n / peak) * (H - TOP)).toFixed(1);
  const path = (pick: (p: (typeof points)[number]) => number | null) => {
    let d = "";
    let open = false;
    points.forEach((p, i) => {
      const v = pick(p);
      if (v === null) {
        open = false;
        return;
      }
      d += `${open ? "L" : "M"}${(i * step + step / 2).toFixed(1)} ${y(v)}`;
      open = true;
    });
    return d;
  };
  // A dot on each point: a step alone between gaps has no line to show it.
  const dots = (pick: (p: (typeof points)[number]) => number | null, color: string) =>
    points.map((p, i) => {
      const v = pick(p);
      return v === null
        ? ""
        : html`<circle cx="${(i * step + step / 2).toFixed(1)}" cy="${y(v)}" r="2" fill="${color}"><title>${hhmm(p.atMs)}: ${round(v)} ms</title></circle>`;
    });
  const last = points.at(-1)?.atMs ?? 0;
  return html`<svg viewBox="0 0 ${W} ${H + 16}" role="img" aria-label="p50 and p95 of ${what} per ${stepMs / 60_000} min">
<path d="${path((p) => p.p50)}" fill="none" stroke="${BLUE}" stroke-width="1.5"/>
<path d="${path((p) => p.p95)}" fill="none" stroke="${RED}" stroke-width="1.5"/>${dots((p) => p.p50, BLUE)}${dots((p) => p.p95, RED)}
${axis(`${round(peak)} ms`, points[0]?.atMs ?? 0, last + stepMs)}</svg>`;
}

export const LEGEND_RUNS = html`<span style="color:${BLUE}">■</span> succeeded <span style="color:${RED}">■</span> failed`;
export const LEGEND_LINES = html`<span style="color:${BLUE}">━</span> p50 <span style="color:${RED}">━</span> p95`;
