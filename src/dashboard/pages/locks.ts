// GET /locks: flow control per job name — unique locks and concurrency
// slots held, jobs parked on a busy key, jobs deferred by a rate limit
// (from stats(), the same one call the overview makes).
import type { Hono } from "hono";
import { html } from "hono/html";
import { number, page } from "../layout.js";
import type { DashboardEnv, DashboardScope } from "../../http/dashboard-slot.js";

export function locksRoute(app: Hono<DashboardEnv>, scope: DashboardScope): void {
  app.get("/locks", async (c) => {
    const rows = Object.entries((await scope.tickq.stats()).flow).filter(
      ([, s]) => s.locksHeld + s.waiting + s.deferred > 0,
    );
    return page(
      c,
      "/locks",
      "Unique locks and limits",
      html`<div class="scroll"><table><tr><th>name</th><th>locks held</th><th>waiting on a busy key</th><th>deferred by a rate limit</th></tr>${rows.map(
        ([name, s]) =>
          html`<tr><td>${name}</td><td>${number(s.locksHeld)}</td><td>${number(s.waiting)}</td><td>${number(s.deferred)}</td></tr>`,
      )}</table></div>${rows.length === 0 ? html`<p class="muted">No lock is held and no job waits on one.</p>` : ""}`,
    );
  });
}
