// GET / (the overview) and GET /overview (its live part alone, which the
// page's script fetches every few seconds while not paused). Running and
// fetched-waiting are what live ticks last reported; in flight is every job
// ticks' lists hold (those two, acks not yet sent, and dead ticks' jobs). The live part
// costs one stats() call and one metrics.query() (every job's runs per
// minute over the last hour) per refresh; the daily chart is read once, with
// the page. Every queue this tickq serves is listed, with no job yet too. Workflow runs are counted by status, over the
// workflows declared here, when there are any.
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import type { MetricsResult, Stats } from "../../index.js";
import { ownValue } from "../../name-record.js";
import { historyChart } from "../chart.js";
import { latency, number, page, pageHeaders, postButton, visibleHtml, when, type Html } from "../layout.js";
import { throughputChart } from "../throughput.js";
import { metricsWindow } from "./metrics.js";
import type { DashboardEnv, DashboardScope } from "../../http/dashboard-slot.js";

type Ctx = Context<DashboardEnv>;

const RUN_STATUSES = ["running", "sleeping", "waiting", "completed", "failed", "cancelled"] as const;

export interface OverviewOptions {
  refreshMs: number;
  historyDays: number;
}

/** The warnings panel: what endangers jobs now (stats().warnings), or that nothing does. */
function warningsPanel(warnings: string[]): Html {
  return html`<section id="warnings"><h2>Warnings</h2>${
    warnings.length === 0
      ? html`<p class="muted">None: ticks run, queues are served, Redis keeps every job.</p>`
      : warnings.map((w) => html`<p class="warn" role="alert">${w}</p>`)
  }</section>`;
}

function live(c: Ctx, stats: Stats, runs: MetricsResult): Html {
  const base = c.var.base;
  const waiting = Object.values(stats.queues).reduce((n, size) => n + size, 0);
  const card = (label: string, value: number, href?: string) =>
    html`<div class="card" data-stat="${label}"><b>${href ? html`<a href="${base}${href}">${number(value)}</a>` : number(value)}</b><span>${label}</span></div>`;
  const paused = new Set(stats.paused);
  const names = [...new Set([...Object.keys(stats.queues), ...stats.paused])].sort();
  return html`<div class="cards">${card("processed", stats.processed)}${card("failed", stats.failed)}${card("waiting", waiting, "/queues")}${card("running", stats.running, "/running")}${card("fetched, waiting", stats.fetchedWaiting)}${card("in flight", stats.inflight, "/running")}${card(
    "scheduled",
    stats.scheduled,
    "/scheduled",
  )}${card("retry", stats.retry, "/retry")}${card("dead", stats.dead, "/dead")}${card("live ticks", stats.ticks, "/ticks")}${card("recurring", stats.schedules, "/schedules")}</div>
<p>Last tick: ${when(stats.lastTickAt)}</p>
${warningsPanel(stats.warnings)}
<h2>Throughput, last hour</h2>${throughputChart(runs)}
${runCards(stats, base)}
<h2>Queues</h2><div class="scroll"><table><tr><th>queue</th><th>waiting</th><th title="how long the job that runs next has waited">latency</th><th></th></tr>
${names.map(
  (name) =>
    html`<tr data-queue="${name}"><td><a href="${base}/queues/${encodeURIComponent(name)}">${name}</a>${paused.has(name) ? html` <span class="tag">paused</span>` : ""}</td><td data-waiting>${number(
      ownValue(stats.queues, name) ?? 0,
    )}</td><td>${latency(ownValue(stats.latency, name) ?? 0)}</td><td>${paused.has(name) ? postButton(c, `/queues/${encodeURIComponent(name)}/resume`, "Resume", { back: base }) : postButton(c, `/queues/${encodeURIComponent(name)}/pause`, "Pause", { back: base })}</td></tr>`,
)}</table></div>`;
}

/** Workflow runs by status, over every declared workflow; nothing when none is declared. */
function runCards(stats: Stats, base: string): Html | "" {
  const per = Object.values(stats.workflows);
  if (per.length === 0) return "";
  const total = (status: (typeof RUN_STATUSES)[number]) => per.reduce((n, counts) => n + counts[status], 0);
  return html`<h2>Workflow runs</h2><div class="cards">${RUN_STATUSES.map(
    (s) =>
      html`<div class="card" data-runs="${s}"><b><a href="${base}/workflows?status=${s}">${number(total(s))}</a></b><span>${s}</span></div>`,
  )}</div>`;
}

/** Runs per minute over the last hour, up to the current minute (the Metrics page's 1 h window). */
const lastHour = (scope: DashboardScope) => scope.tickq.metrics.query(metricsWindow(1, Date.now()));

export function overviewRoutes(app: Hono<DashboardEnv>, scope: DashboardScope, options: OverviewOptions): void {
  app.get("/", async (c) => {
    const [stats, runs, days] = await Promise.all([
      scope.tickq.stats(),
      lastHour(scope),
      scope.tickq.stats.history(options.historyDays),
    ]);
    return page(
      c,
      "",
      "Overview",
      html`<div class="bar"><button id="pause" type="button" aria-pressed="false">Pause</button><span class="muted">refreshes every ${options.refreshMs / 1000} s</span></div>
<div id="live" data-src="${c.var.base}/overview" data-every="${options.refreshMs}">${live(c, stats, runs)}</div>
<h2>Last ${days.length} days</h2>${historyChart(days)}`,
    );
  });
  // A fragment, but with the pages' headers all the same: it holds pause/resume forms with the session's
  // CSRF token, so it must not be framed (clickjacking from a same-site page, which gets the
  // SameSite=Strict cookie) nor cached.
  app.get("/overview", async (c) => {
    const [stats, runs] = await Promise.all([scope.tickq.stats(), lastHour(scope)]);
    pageHeaders(c);
    return visibleHtml(c, live(c, stats, runs));
  });
}
