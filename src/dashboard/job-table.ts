// One page of jobs as a table, with the search by job name above it and the
// link to the next page below (the jobs API's cursor). Rows offer retry and
// delete, and cancel, where the job's state allows them, one by one or for
// the rows ticked; running jobs show their last progress.
import type { Context } from "hono";
import { html, raw } from "hono/html";
import type { JobInfo, JobPage } from "../index.js";
import { textField } from "./field.js";
import { postButton, preview, when, type Html } from "./layout.js";
import type { DashboardEnv } from "../http/dashboard-slot.js";

type Ctx = Context<DashboardEnv>;

const canRetry = (job: JobInfo) => job.state === "scheduled" || job.state === "retry" || job.state === "dead";
/** States tq.jobs.cancel takes. */
export const canCancel = (job: JobInfo) =>
  job.state === "queued" || job.state === "scheduled" || job.state === "retry" || job.state === "running";

/** A Cancel button, confirmed first (tq.jobs.cancel). */
export function cancelButton(c: Ctx, job: JobInfo, back?: string): Html {
  return postButton(c, `/jobs/${encodeURIComponent(job.jid)}/cancel`, "Cancel", {
    danger: true,
    confirm: `Cancel job ${job.jid}${job.state === "running" ? " (its handler is told to stop; it ends cancelled)" : ""}?`,
    ...(back === undefined ? {} : { back }),
  });
}

/** A running job's last ctx.progress, short. */
export function progressOf(job: JobInfo): Html | "" {
  if (job.progress === undefined) return "";
  return html` <span class="tag" data-progress>${preview(job.progress)}</span>`;
}

function place(job: JobInfo): Html {
  if (job.state === "queued") return html`${job.position === 0 ? "next" : `${job.position} ahead`}`;
  if (job.state === "running")
    return html`tick ${job.tick}${job.tickAlive ? "" : html` <span class="tag">lease gone</span>`}${progressOf(job)}`;
  return when(job.at);
}

/** "Class: message" of a failed job, "" when it has neither; a field of the wrong type shows as malformed. */
export function errorOf(job: JobInfo): Html | "" {
  const { error_class: kind, error_message: message } = job.job as { error_class?: unknown; error_message?: unknown };
  return kind || message ? html`${kind ? textField(kind) : "Error"}: ${textField(message)}` : "";
}

/** A succeeded job's duration and result cells (tq.jobs.list("succeeded") reads both). */
function outcome(job: JobInfo): Html {
  return html`<td data-label="duration" data-duration="${job.durationMs ?? ""}">${job.durationMs === undefined ? "" : `${job.durationMs} ms`}</td><td data-label="result"><code>${
    job.resultError !== undefined ? `not kept: ${job.resultError}` : job.result === undefined ? "" : preview(job.result)
  }</code></td>`;
}

// An empty Succeeded list next to a non-zero "processed" puzzles a newcomer: say where the records went.
const SUCCEEDED_KEPT =
  " A job that succeeds leaves a record here only with createTickq({ keepCompleted }); without it, only the processed count remembers it.";

/**
 * The form the rows' checkboxes belong to (form="sel"): the page's jobs' actions, each for the jobs
 * ticked (POST /jobs/bulk, actions.ts). Only the actions some job on the page allows are offered.
 */
function selectionForm(c: Ctx, jobs: JobInfo[]): Html | "" {
  const acts: [string, string, boolean][] = [
    ["retry", "Retry selected", jobs.some(canRetry)],
    ["cancel", "Cancel selected", jobs.some(canCancel)],
    ["delete", "Delete selected", jobs.some((j) => j.state !== "running")],
  ];
  const here = new URL(c.req.url);
  here.searchParams.delete("done");
  return jobs.length === 0
    ? ""
    : html`<form id="sel" class="bar" method="post" action="${c.var.base}/jobs/bulk" data-confirm="Do this to every job ticked?"><input type="hidden" name="_csrf" value="${c.var.csrf}"><input type="hidden" name="back" value="${here.pathname + here.search}">${acts
        .filter(([, , on]) => on)
        .map(
          ([act, label]) =>
            html`<button name="do" value="${act}"${act === "retry" ? "" : raw(' class="danger"')}>${label}</button>`,
        )}</form>`;
}

export function jobTable(c: Ctx, page: JobPage, options: { when: string; errors: boolean; results?: boolean }): Html {
  const base = c.var.base;
  const next = new URL(c.req.url);
  next.searchParams.delete("done");
  if (page.cursor) next.searchParams.set("cursor", page.cursor);
  const first = new URL(next);
  first.searchParams.delete("cursor");
  // class jobs: on a phone each row becomes a card (style.ts), so the error and the buttons are not squeezed off-screen.
  return html`${selectionForm(c, page.jobs)}<div class="scroll"><table class="jobs"><tr><th></th><th>jid</th><th>job</th><th>queue</th><th>${options.when}</th><th>args</th>${options.errors ? html`<th>error</th>` : ""}${options.results ? html`<th>duration</th><th>result</th>` : ""}<th></th></tr>
${page.jobs.map(
  (job) =>
    html`<tr data-jid="${job.jid}"><td><input type="checkbox" name="jid" value="${job.jid}" form="sel" aria-label="select ${job.jid}"></td><td data-label="jid"><a href="${base}/jobs/${encodeURIComponent(job.jid)}">${job.jid}</a></td><td data-label="job">${job.name}</td><td data-label="queue">${job.queue}</td><td data-label="${options.when}">${place(job)}</td><td data-label="args"><code>${preview(
      job.job.args,
    )}</code></td>${options.errors ? html`<td class="err" data-label="error">${errorOf(job)}</td>` : ""}${options.results ? outcome(job) : ""}<td class="act">${canRetry(job) ? postButton(c, `/jobs/${encodeURIComponent(job.jid)}/retry`, "Retry") : ""} ${canCancel(job) ? cancelButton(c, job) : ""} ${
      job.state === "running"
        ? ""
        : postButton(c, `/jobs/${encodeURIComponent(job.jid)}/delete`, "Delete", { danger: true })
    }</td></tr>`,
)}</table></div>
${page.jobs.length === 0 ? html`<p class="muted">No jobs here.${options.results ? SUCCEEDED_KEPT : ""}</p>` : ""}
<p class="bar">${c.req.query("cursor") ? html`<a href="${first.pathname + first.search}">« First page</a>` : ""}${page.cursor ? html`<a rel="next" href="${next.pathname + next.search}">Next page »</a>` : ""}</p>`;
}

/** The search by job name (the jobs API filters by exact name). */
export function nameSearch(c: Ctx): Html {
  return html`<form class="bar" method="get"><input name="name" placeholder="job name" value="${c.req.query("name") ?? ""}" aria-label="job name"><button>Search</button>${
    c.req.query("name") ? html`<a href="${new URL(c.req.url).pathname}">clear</a>` : ""
  }</form>`;
}
