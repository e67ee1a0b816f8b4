// Processed and failed per day as an inline SVG bar chart: no script, no
// image request, a few hundred bytes for 30 days. `processed` counts every
// job that ran, failures included (Sidekiq's stat:processed), so a day's bar
// is `processed` high: its failed part in red, the rest in blue.
import { html } from "hono/html";
import type { DayStats } from "../index.js";
import type { Html } from "./layout.js";

const W = 600;
const H = 120;
const TOP = 14;

export function historyChart(days: DayStats[]): Html {
  const peak = Math.max(1, ...days.map((d) => Math.max(d.processed, d.failed)));
  const step = W / Math.max(days.length, 1);
  const bar = Math.max(1, step - 2);
  const y = (n: number) => (n / peak) * (H - TOP);
  return html`<svg viewBox="0 0 ${W} ${H + 16}" role="img" aria-label="processed and failed jobs per day, last ${days.length} days">
${days.map((d, i) => {
  const x = (i * step).toFixed(1);
  const ran = Math.max(d.processed, d.failed);
  const bad = y(d.failed);
  const ok = y(ran) - bad;
  return html`<g><title>${d.date}: ${d.processed} processed, ${d.failed} of them failed</title><rect x="${x}" y="${(H - ok).toFixed(1)}" width="${bar.toFixed(1)}" height="${ok.toFixed(1)}" fill="#4f7be0"/><rect x="${x}" y="${(H - ok - bad).toFixed(1)}" width="${bar.toFixed(1)}" height="${bad.toFixed(1)}" fill="#d9534f"/></g>`;
})}
<text x="0" y="10" font-size="10" fill="#5b6475">${peak} / day</text>
<text x="0" y="${H + 13}" font-size="10" fill="#5b6475">${days[0]?.date ?? ""}</text>
<text x="${W}" y="${H + 13}" font-size="10" fill="#5b6475" text-anchor="end">${days.at(-1)?.date ?? ""}</text></svg>
<p class="muted"><span style="color:#4f7be0">■</span> succeeded <span style="color:#d9534f">■</span> failed (together: processed)</p>`;
}
