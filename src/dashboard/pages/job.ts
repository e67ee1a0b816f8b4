// GET /jobs/:jid: one job wherever it is — its state and place, arguments,
// error and backtrace, the stored JSON — with retry, delete and cancel.
import type { Hono } from "hono";
import { html } from "hono/html";
import { TickqError } from "../../errors.js";
import { countField, secondsField } from "../field.js";
import { cancelButton, canCancel, errorOf } from "../job-table.js";
import { type Html, page, postButton, when } from "../layout.js";
import type { DashboardEnv, DashboardScope } from "../../http/dashboard-slot.js";
import type { JobInfo } from "../../index.js";

const AT_LABEL: Partial<Record<JobInfo["state"], string>> = {
  dead: "died",
  succeeded: "finished",
  cancelled: "cancelled",
  expired: "expired",
};

/** A succeeded job's result, or why it was not kept. */
function resultOf(job: JobInfo) {
  if (job.resultError !== undefined) return html`<p class="err">Not kept: ${job.resultError}</p>`;
  if (job.result === undefined) return html`<p class="muted">Its handler returned nothing.</p>`;
  return html`<pre>${JSON.stringify(job.result, null, 2)}</pre>`;
}

/** Which run of the job this is: 1, then 2 after its first failure (Sidekiq's retry_count is 0 then). */
export const attemptOf = (job: JobInfo) =>
  typeof job.job.retry_count === "number" && Number.isFinite(job.job.retry_count) ? job.job.retry_count + 2 : 1;

/**
 * A running job's attempt, and its tick's start and lease: tickq records no start per job, so the
 * job started after its tick began, and must end by the time the tick's lease runs out (extended while
 * the tick runs; the tick aborts its handlers at its budget, a little before).
 */
async function runningFacts(scope: DashboardScope, job: JobInfo): Promise<Html | ""> {
  if (job.state !== "running") return "";
  const tick = (await scope.tickq.ticks()).find((t) => t.id === job.tick);
  return html`<dt>attempt</dt><dd data-attempt>${attemptOf(job)}</dd>${
    tick
      ? html`<dt>started</dt><dd data-started>after ${when(tick.startedAt)} (its tick began)</dd><dt>deadline</dt><dd data-deadline>${
          tick.leaseLeftMs === null
            ? "its tick's lease is gone"
            : html`${when(tick.seenAt + tick.leaseLeftMs)} (its tick's lease)`
        }</dd>`
      : ""
  }`;
}

export function jobRoute(app: Hono<DashboardEnv>, scope: DashboardScope): void {
  app.get("/jobs/:jid", async (c) => {
    const jid = c.req.param("jid");
    const job = await scope.tickq.jobs.find(jid);
    if (!job)
      throw new TickqError(
        "NOT_FOUND",
        `No job with jid ${jid}: it is in no queue, set or tick (it ran and succeeded, was deleted, or never existed; succeeded jobs are kept only with keepCompleted).`,
      );
    const { job: fields } = job;
    const error = errorOf(job);
    const path = `/jobs/${encodeURIComponent(jid)}`;
    const retryable = job.state === "scheduled" || job.state === "retry" || job.state === "dead";
    return page(
      c,
      `/${job.state === "queued" ? "queues" : job.state}`,
      `Job ${jid}`,
      html`<p class="bar"><span class="tag" data-state="${job.state}">${job.state}</span> ${retryable ? postButton(c, `${path}/retry`, "Retry now") : ""} ${
        canCancel(job) ? cancelButton(c, job) : ""
      } ${
        job.state === "running"
          ? ""
          : postButton(c, `${path}/delete`, "Delete", {
              danger: true,
              confirm: "Delete this job?",
              back: `${c.var.base}/${job.state === "queued" ? "queues" : job.state}`,
            })
      }</p>
<dl><dt>job</dt><dd>${job.name}</dd><dt>queue</dt><dd><a href="${c.var.base}/queues/${encodeURIComponent(job.queue)}">${job.queue}</a></dd>
${job.at !== undefined ? html`<dt>${AT_LABEL[job.state] ?? "due"}</dt><dd>${when(job.at)}</dd>` : ""}
${job.priority !== undefined ? html`<dt>priority</dt><dd>${job.priority}</dd>` : ""}
${job.group !== undefined ? html`<dt>group</dt><dd>${job.group}</dd>` : ""}
${job.expiresAt !== undefined ? html`<dt>expires</dt><dd>${when(job.expiresAt)}</dd>` : ""}
${job.cancelledFrom !== undefined ? html`<dt>cancelled while</dt><dd>${job.cancelledFrom}</dd>` : ""}
${job.durationMs !== undefined ? html`<dt>duration</dt><dd>${job.durationMs} ms</dd>` : ""}
${job.position !== undefined ? html`<dt>position</dt><dd>${job.position} ahead</dd>` : ""}
${job.progress !== undefined ? html`<dt>progress</dt><dd>${JSON.stringify(job.progress)}</dd>` : ""}
${await runningFacts(scope, job)}
${job.tick !== undefined ? html`<dt>tick</dt><dd>${job.tick}${job.tickAlive ? "" : " (lease gone: waits for the resurrector)"}</dd>` : ""}
<dt>created</dt><dd>${secondsField(fields.created_at)}</dd><dt>enqueued</dt><dd>${secondsField(fields.enqueued_at)}</dd>
${fields.retry_count !== undefined ? html`<dt>retries</dt><dd>${countField(fields.retry_count)}</dd>` : ""}
${job.retries !== undefined ? html`<dt>retry limit</dt><dd data-retry-limit>${job.retries.limit}${job.retries.from === "definition" ? " (from its definition)" : ""}</dd>` : ""}
${fields.failed_at !== undefined ? html`<dt>failed</dt><dd>${secondsField(fields.failed_at)}</dd>` : ""}
${error ? html`<dt>error</dt><dd class="err">${error}</dd>` : ""}</dl>
<h2>Arguments</h2><pre>${JSON.stringify(fields.args, null, 2)}</pre>
${job.state === "succeeded" ? html`<h2>Result</h2>${resultOf(job)}` : ""}
${job.backtrace ? html`<h2>Backtrace</h2><pre class="backtrace">${job.backtrace.join("\n")}</pre>` : ""}
<h2>Stored JSON</h2><pre>${job.raw}</pre>`,
    );
  });
}
