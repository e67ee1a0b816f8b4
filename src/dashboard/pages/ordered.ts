// GET /ordered: per ordered job declared here, ids waiting and running,
// payloads waiting, dead (from stats(), as the overview reads it).
import type { Hono } from "hono";
import { html } from "hono/html";
import { number, page } from "../layout.js";
import type { DashboardEnv, DashboardScope } from "../types.js";

export function orderedRoute(app: Hono<DashboardEnv>, scope: DashboardScope): void {
  app.get("/ordered", async (c) => {
    const names = Object.entries((await scope.tickq.stats()).ordered);
    return page(
      c,
      "/ordered",
      "Ordered jobs by id",
      html`<div class="scroll"><table><tr><th>name</th><th>ids waiting</th><th>ids running</th><th>payloads waiting</th><th>dead</th></tr>${names.map(
        ([name, s]) =>
          html`<tr><td>${name}</td><td>${number(s.waiting)}</td><td>${number(s.running)}</td><td>${number(s.payloads)}</td><td>${number(s.dead)}</td></tr>`,
      )}</table></div>${names.length === 0 ? html`<p class="muted">No ordered jobs declared in this deployment.</p>` : ""}`,
    );
  });
}
