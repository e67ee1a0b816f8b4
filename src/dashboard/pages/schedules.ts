// GET /schedules: the recurring jobs — the spec in words (the expression on
// hover), the next runs, the last run and jid, paused or not — with Run now
// and Pause or Resume (POSTs in actions.ts, through tq.schedules).
import type { Hono } from "hono";
import { html } from "hono/html";
import { page, postButton, when } from "../layout.js";
import { specInWords } from "../spec-words.js";
import type { DashboardEnv, DashboardScope } from "../../http/dashboard-slot.js";

const ms = (date: Date | null) => (date ? date.getTime() : null);

export function schedulesRoute(app: Hono<DashboardEnv>, scope: DashboardScope): void {
  app.get("/schedules", async (c) => {
    const schedules = await scope.tickq.schedules();
    return page(
      c,
      "/schedules",
      "Recurring jobs",
      html`<div class="scroll"><table><tr><th>name</th><th>runs</th><th>next runs</th><th>last run</th><th>last jid</th><th></th></tr>${schedules.map(
        (s) => {
          const path = `/schedules/${encodeURIComponent(s.name)}`;
          return html`<tr data-schedule="${s.name}"><td>${s.name}${s.paused ? html` <span class="tag">paused</span>` : ""}${s.declared ? "" : html` <span class="tag">not declared here</span>`}${s.inSync ? "" : html` <span class="tag">not in sync</span>`}${
            s.orphanedAt ? html` <span class="tag">orphaned</span>` : ""
          }</td><td title="${JSON.stringify(s.spec)}" data-spec>${specInWords(s.spec)}</td><td data-next>${
            s.nextRuns.length ? s.nextRuns.map((d, i) => html`${i ? html`<br>` : ""}${when(d.getTime())}`) : when(null)
          }</td><td>${when(ms(s.lastRunAt))}</td><td>${
            s.lastJid ? html`<a href="${c.var.base}/jobs/${encodeURIComponent(s.lastJid)}">${s.lastJid}</a>` : ""
          }</td><td class="act">${s.declared ? postButton(c, `${path}/run-now`, "Run now", { confirm: `Run ${s.name} now?` }) : ""} ${postButton(
            c,
            `${path}/${s.paused ? "resume" : "pause"}`,
            s.paused ? "Resume" : "Pause",
          )}</td></tr>`;
        },
      )}</table></div>${schedules.length === 0 ? html`<p class="muted">No recurring jobs.</p>` : ""}`,
    );
  });
}
