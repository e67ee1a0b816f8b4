// GET /workflows: per workflow declared here, its runs by status (stats()),
// and the newest runs (?status= one status); GET /workflows/:id: a run, its
// output or error, and its steps in order with attempts, durations, results
// and errors: a waiting step's event, match and timeout, a sleeping step's
// end, a failed step's next try and stack; while it can still go on, a
// Cancel button, once failed or cancelled a Retry button, and on each step a
// Fork button that starts a new run from it (POST .../cancel, .../retry and
// .../fork in actions.ts); above the table, the steps on a time axis
// (timeline.ts). Times as on job pages.
// Read through tq.workflows, never keys.
import type { Hono } from "hono";
import { html } from "hono/html";
import { TickqError } from "../../errors.js";
import type { WorkflowStatus, WorkflowStepInfo } from "../../workflows/types.js";
import { type Html, number, page, postButton, when } from "../layout.js";
import type { DashboardEnv, DashboardScope } from "../../http/dashboard-slot.js";
import { timeline } from "./timeline.js";

const STATUSES: WorkflowStatus[] = ["running", "sleeping", "waiting", "completed", "failed", "cancelled"];
/** The statuses a run can leave by itself: the ones it can still be cancelled in. */
const LIVE: WorkflowStatus[] = ["running", "sleeping", "waiting"];
/** The statuses a retry resumes a run from. */
const RETRIABLE: WorkflowStatus[] = ["failed", "cancelled"];
const json = (value: unknown) => {
  const text = JSON.stringify(value) ?? "";
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};
/** How long from `from` to `to`, when both are known. */
const took = (from: number | undefined, to: number | undefined) =>
  from === undefined || to === undefined ? "" : `${number(Math.max(0, to - from))} ms`;

/** What a step is, or waits for, beyond its status. */
function detail(s: WorkflowStepInfo): Html {
  if (s.status === "waiting")
    return html`event <code>${s.event ?? ""}</code> match <code>${JSON.stringify(s.match ?? "")}</code>, ${
      s.wakeAt === undefined ? "no timeout" : html`timeout ${when(s.wakeAt)}`
    }`;
  if (s.status === "sleeping") return html`until ${when(s.wakeAt)}`;
  if (s.error)
    return html`<span class="warn">${s.error.name}: ${s.error.message}</span>${
      s.nextTryAt === undefined ? "" : html`<br>next try ${when(s.nextTryAt)}`
    }${s.error.stack ? html`<pre class="backtrace">${s.error.stack}</pre>` : ""}`;
  return html`<code>${json(s.result)}</code>`;
}

export function workflowsRoute(app: Hono<DashboardEnv>, scope: DashboardScope): void {
  app.get("/workflows", async (c) => {
    const asked = c.req.query("status");
    const status = STATUSES.find((s) => s === asked);
    const [stats, page_] = await Promise.all([scope.tickq.stats(), scope.tickq.workflows.list({ status, limit: 100 })]);
    const counts = Object.entries(stats.workflows);
    const base = c.var.base;
    return page(
      c,
      "/workflows",
      "Workflows",
      html`<div class="scroll"><table><tr><th>workflow</th>${STATUSES.map((s) => html`<th><a href="${base}/workflows?status=${s}">${s}</a></th>`)}</tr>${counts.map(
        ([name, s]) => html`<tr><td>${name}</td>${STATUSES.map((k) => html`<td>${number(s[k])}</td>`)}</tr>`,
      )}</table></div>${counts.length === 0 ? html`<p class="muted">No workflows declared in this deployment.</p>` : ""}
      <h2>${status ? `Runs ${status}` : "Newest runs"}</h2>
      <div class="scroll"><table><tr><th>run</th><th>workflow</th><th>status</th><th>updated</th></tr>${page_.runs.map(
        (r) =>
          html`<tr><td><a href="${base}/workflows/${encodeURIComponent(r.id)}">${r.id}</a></td><td>${r.name}</td><td>${r.status}</td><td>${when(r.updatedAt)}</td></tr>`,
      )}</table></div>${page_.runs.length === 0 ? html`<p class="muted">No runs.</p>` : ""}`,
    );
  });

  app.get("/workflows/:id", async (c) => {
    const id = c.req.param("id");
    const run = await scope.tickq.workflows.get(id);
    if (!run) throw new TickqError("NOT_FOUND", `no workflow run ${JSON.stringify(id)}`);
    const path = `/workflows/${encodeURIComponent(run.id)}`;
    const forkButton = (step: string) =>
      postButton(c, `${path}/fork`, "Fork", {
        fields: { fromStep: step },
        confirm: `Start a new run from step ${JSON.stringify(step)}? The steps before it are copied, not run again.`,
      });
    return page(
      c,
      "/workflows",
      `Workflow run ${run.id}`,
      html`${
        LIVE.includes(run.status)
          ? html`<p class="bar">${postButton(c, `${path}/cancel`, "Cancel", {
              danger: true,
              confirm: "Cancel this run? No further step starts; a running step's ctx.signal aborts.",
            })}</p>`
          : RETRIABLE.includes(run.status)
            ? html`<p class="bar">${postButton(c, `${path}/retry`, "Retry", {
                confirm: "Resume this run at the step that ended it? Its completed steps are kept.",
              })}</p>`
            : ""
      }<dl><dt>workflow</dt><dd>${run.name}</dd><dt>status</dt><dd>${run.status}</dd><dt>version</dt><dd>${number(run.version)}</dd><dt>input</dt><dd><code>${json(run.input)}</code></dd>${
        run.output !== undefined ? html`<dt>output</dt><dd><code>${json(run.output)}</code></dd>` : ""
      }${run.error ? html`<dt>error</dt><dd class="warn">${run.error.name}: ${run.error.message}${run.error.step ? ` (step ${run.error.step})` : ""}</dd>` : ""}<dt>started</dt><dd>${when(run.createdAt)}</dd><dt>updated</dt><dd>${when(run.updatedAt)}</dd>${
        run.endedAt === undefined
          ? ""
          : html`<dt>ended</dt><dd>${when(run.endedAt)}</dd><dt>duration</dt><dd>${took(run.createdAt, run.endedAt)}</dd>`
      }</dl>
      <h2>Steps</h2>${timeline(run, Date.now())}
      <div class="scroll"><table><tr><th>step</th><th>status</th><th>attempts</th><th>started</th><th>ended</th><th>duration</th><th>result, error or wait</th><th></th></tr>${run.steps.map(
        (s) =>
          html`<tr><td>${s.name}</td><td>${s.status}</td><td>${number(s.attempts)}</td><td>${s.startedAt === undefined ? "" : when(s.startedAt)}</td><td>${s.endedAt === undefined ? "" : when(s.endedAt)}</td><td>${took(s.startedAt, s.endedAt)}</td><td>${detail(s)}</td><td>${forkButton(s.name)}</td></tr>`,
      )}</table></div>`,
    );
  });
}
