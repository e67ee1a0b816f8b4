// Every job name's runs added up per step: the overview's live throughput
// (per minute, the last hour) and the top of the Metrics page, from the
// per-minute metrics tickq keeps anyway (tq.metrics.query). The totals are on
// the page (data-runs, data-failures) to be checked against the same query.
import { html } from "hono/html";
import type { MetricsResult } from "../index.js";
import { number, type Html } from "./layout.js";
import { LEGEND_RUNS, runBars } from "./metrics-chart.js";

export interface StepRuns {
  atMs: number;
  runs: number;
  failures: number;
}

/** Runs and failures of all job names, per step of the query, oldest first. */
export function allRuns(result: MetricsResult): StepRuns[] {
  const steps = Math.max(0, Math.round((result.untilMs - result.sinceMs) / result.stepMs));
  const out = Array.from({ length: steps }, (_, i) => ({
    atMs: result.sinceMs + i * result.stepMs,
    runs: 0,
    failures: 0,
  }));
  for (const series of result.jobs)
    for (const p of series.points) {
      const step = out[Math.round((p.atMs - result.sinceMs) / result.stepMs)];
      if (step) {
        step.runs += p.runs;
        step.failures += p.failures;
      }
    }
  return out;
}

/** The chart with its totals and the last step's runs. */
export function throughputChart(result: MetricsResult): Html {
  const steps = allRuns(result);
  const runs = steps.reduce((n, s) => n + s.runs, 0);
  const failures = steps.reduce((n, s) => n + s.failures, 0);
  const per = `${result.stepMs / 60_000} min`;
  return html`<p id="throughput" data-since="${result.sinceMs}" data-until="${result.untilMs}" data-step="${result.stepMs}" data-runs="${runs}" data-failures="${failures}" data-last="${steps.at(-1)?.runs ?? 0}">${number(runs)} runs, ${number(failures)} failed; ${number(steps.at(-1)?.runs ?? 0)} in the current ${per}</p>
${runBars(steps, result.stepMs, "every job")}<p class="muted">${LEGEND_RUNS}</p>`;
}
