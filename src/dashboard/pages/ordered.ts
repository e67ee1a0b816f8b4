// GET /ordered: per ordered job declared here, ids waiting and running,
// payloads waiting, dead (from stats(), as the overview reads it), and a form
// that cancels one id by name (POST /ordered/:name/cancel, src/dashboard/actions.ts):
// an ordered id has no jid, so it is named rather than picked from a list.
import type { Hono } from "hono";
import { html } from "hono/html";
import { number, page } from "../layout.js";
import type { DashboardEnv, DashboardScope } from "../../http/dashboard-slot.js";

export function orderedRoute(app: Hono<DashboardEnv>, scope: DashboardScope): void {
  app.get("/ordered", async (c) => {
    const names = Object.entries((await scope.tickq.stats()).ordered);
    const cancelForm = (name: string) =>
      html`<form class="inline" method="post" action="${c.var.base}/ordered/${encodeURIComponent(name)}/cancel" data-confirm="Cancel this id: its waiting payloads and its run?"><input type="hidden" name="_csrf" value="${c.var.csrf}"><input type="hidden" name="back" value="${c.var.base}/ordered"><input name="id" placeholder="id" required aria-label="id of ${name} to cancel"> <button class="danger">Cancel id</button></form>`;
    return page(
      c,
      "/ordered",
      "Ordered jobs by id",
      html`<div class="scroll"><table><tr><th>name</th><th>ids waiting</th><th>ids running</th><th>payloads waiting</th><th>dead</th><th>cancel an id</th></tr>${names.map(
        ([name, s]) =>
          html`<tr><td>${name}</td><td>${number(s.waiting)}</td><td>${number(s.running)}</td><td>${number(s.payloads)}</td><td>${number(s.dead)}</td><td>${cancelForm(name)}</td></tr>`,
      )}</table></div>${names.length === 0 ? html`<p class="muted">No ordered jobs declared in this deployment.</p>` : ""}`,
    );
  });
}
