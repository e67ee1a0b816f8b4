// GET /metrics: runs, failures and run times per job name (ordered ones too),
// waits and latency per queue, and waits per ordered job, over the last hours (?hours=1|3|6|24|72), from one
// tq.metrics.query() call. The window and step are on the page
// (data-since, data-until, data-step) so what it shows can be checked
// against the same query.
import type { Hono } from "hono";
import { html } from "hono/html";
import type { JobMetricsSeries, MetricsResult, OrderedMetricsSeries, QueueMetricsSeries } from "../../index.js";
import { number, page, type Html } from "../layout.js";
import { LEGEND_LINES, LEGEND_RUNS, percentileLines, runBars } from "../metrics-chart.js";
import { throughputChart } from "../throughput.js";
import type { DashboardEnv, DashboardScope } from "../../http/dashboard-slot.js";

const HOURS = [1, 3, 6, 24, 72] as const;
const MINUTE_MS = 60_000;
/** At most this many points a chart: a step of several minutes over long windows. */
const MAX_POINTS = 72;

/** The `hours` up to the end of the current minute, in steps of whole minutes. */
export function metricsWindow(hours: number, nowMs: number): { sinceMs: number; untilMs: number; stepMs: number } {
  const minutes = hours * 60;
  const stepMs = Math.ceil(minutes / MAX_POINTS) * MINUTE_MS;
  const untilMs = (Math.floor(nowMs / MINUTE_MS) + 1) * MINUTE_MS;
  return { sinceMs: untilMs - minutes * MINUTE_MS, untilMs, stepMs };
}

const ms = (value: number | null) =>
  value === null ? "—" : value >= 100 ? number(Math.round(value)) : value.toFixed(1);

function jobSection(s: JobMetricsSeries, stepMs: number): Html {
  const t = s.total;
  return html`<section data-name="${s.name}"><h2>${s.name}</h2>
<dl><dt>runs</dt><dd data-runs="${t.runs}">${number(t.runs)}</dd><dt>failed</dt><dd data-failures="${t.failures}">${number(t.failures)}${
    t.runs > 0 ? ` (${((t.failures / t.runs) * 100).toFixed(1)} %)` : ""
  }</dd><dt>run time p50 / p95 / p99</dt><dd data-p50="${t.p50 ?? ""}" data-p95="${t.p95 ?? ""}" data-p99="${t.p99 ?? ""}">${ms(t.p50)} / ${ms(t.p95)} / ${ms(t.p99)} ms</dd></dl>
${runBars(s.points, stepMs, s.name)}${percentileLines(s.points, stepMs, `${s.name}'s run time`)}</section>`;
}

function queueRow(q: QueueMetricsSeries): Html {
  const t = q.total;
  return html`<tr data-queue="${q.queue}"><td>${q.queue}</td><td data-latency="${q.latencyMs}">${number(Math.round(q.latencyMs))} ms</td><td data-waits="${t.waits}">${number(t.waits)}</td><td data-wait-p50="${t.p50 ?? ""}">${ms(t.p50)}</td><td data-wait-p95="${t.p95 ?? ""}">${ms(t.p95)}</td><td>${ms(t.p99)}</td></tr>`;
}

function orderedRow(o: OrderedMetricsSeries): Html {
  const t = o.total;
  return html`<tr data-ordered="${o.name}"><td>${o.name}</td><td data-waits="${t.waits}">${number(t.waits)}</td><td data-wait-p50="${t.p50 ?? ""}">${ms(t.p50)}</td><td data-wait-p95="${t.p95 ?? ""}">${ms(t.p95)}</td><td>${ms(t.p99)}</td></tr>`;
}

// Ordered ids wait in their own sets, not in a queue: their waits (due to start) get a table of their own.
function orderedTable(ordered: OrderedMetricsSeries[]): Html | string {
  if (ordered.length === 0) return "";
  return html`<h2>Ordered jobs</h2><div class="scroll"><table><tr><th>ordered job</th><th>ran</th><th>wait p50 ms</th><th>wait p95 ms</th><th>wait p99 ms</th></tr>${ordered.map(orderedRow)}</table></div>`;
}

function body(c: { var: { base: string } }, hours: number, result: MetricsResult): Html {
  const base = c.var.base;
  const active = result.jobs.filter((s) => s.total.runs > 0);
  return html`<div class="bar">${HOURS.map((h) =>
    h === hours ? html`<b>${h} h</b>` : html`<a href="${base}/metrics?hours=${h}">${h} h</a>`,
  )}<span class="muted">per ${result.stepMs / MINUTE_MS} min</span></div>
<div id="metrics" data-since="${result.sinceMs}" data-until="${result.untilMs}" data-step="${result.stepMs}">
<h2>Every job</h2>${throughputChart(result)}
<h2>Queues</h2><div class="scroll"><table><tr><th>queue</th><th>latency (oldest waiting)</th><th>ran</th><th>wait p50 ms</th><th>wait p95 ms</th><th>wait p99 ms</th></tr>${result.queues.map(queueRow)}</table></div>
${result.queues
  .filter((q) => q.total.waits > 0)
  .map(
    (q) =>
      html`<h3>Wait in ${q.queue}</h3>${percentileLines(
        q.points.map((p) => ({ atMs: p.atMs, p50: p.p50, p95: p.p95 })),
        result.stepMs,
        `the wait in ${q.queue}`,
      )}`,
  )}
${orderedTable(result.ordered)}
<p class="muted">${LEGEND_RUNS} · ${LEGEND_LINES}</p>
${active.length === 0 ? html`<p class="muted">No job ran in the last ${hours} h.</p>` : active.map((s) => jobSection(s, result.stepMs))}</div>`;
}

export function metricsRoute(app: Hono<DashboardEnv>, scope: DashboardScope): void {
  app.get("/metrics", async (c) => {
    const asked = Number(c.req.query("hours") ?? 3);
    const hours = (HOURS as readonly number[]).includes(asked) ? asked : 3;
    const window = metricsWindow(hours, Date.now());
    const result = await scope.tickq.metrics.query(window);
    return page(c, "/metrics", "Metrics", body(c, hours, result));
  });
}
