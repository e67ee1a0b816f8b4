// GET /schedules: the recurring jobs (spec, next and last run, last jid).
import type { Hono } from "hono";
import { html } from "hono/html";
import { page, when } from "../layout.js";
import type { DashboardEnv, DashboardScope } from "../types.js";

const ms = (date: Date | null) => (date ? date.getTime() : null);

export function schedulesRoute(app: Hono<DashboardEnv>, scope: DashboardScope): void {
  app.get("/schedules", async (c) => {
    const schedules = await scope.tickq.schedules();
    return page(
      c,
      "/schedules",
      "Recurring jobs",
      html`<div class="scroll"><table><tr><th>name</th><th>spec</th><th>next run</th><th>last run</th><th>last jid</th></tr>${schedules.map(
        (s) =>
          html`<tr><td>${s.name}${s.declared ? "" : html` <span class="tag">not declared here</span>`}${s.inSync ? "" : html` <span class="tag">not in sync</span>`}${
            s.orphanedAt ? html` <span class="tag">orphaned</span>` : ""
          }</td><td><code>${JSON.stringify(s.spec)}</code></td><td>${when(ms(s.nextRunAt))}</td><td>${when(ms(s.lastRunAt))}</td><td>${
            s.lastJid ? html`<a href="${c.var.base}/jobs/${encodeURIComponent(s.lastJid)}">${s.lastJid}</a>` : ""
          }</td></tr>`,
      )}</table></div>${schedules.length === 0 ? html`<p class="muted">No recurring jobs.</p>` : ""}`,
    );
  });
}
