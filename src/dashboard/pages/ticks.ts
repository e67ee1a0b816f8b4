// GET /ticks: the live ticks (tq.ticks()), each with its lease: when it
// began, how much of its lease is left, the queues it serves, the jobs it
// holds. A tick whose lease is gone waits for the resurrector. Below, the
// last 100 ticks that finished (tq.ticks.recent()) with what each did.
import type { Hono } from "hono";
import { html } from "hono/html";
import type { RecentTick } from "../../index.js";
import { number, page, when } from "../layout.js";
import type { DashboardEnv, DashboardScope } from "../../http/dashboard-slot.js";

/** "12 succeeded, 1 failed", in the order recentSummary writes them; "nothing to do" when all are 0. */
function did(t: RecentTick): string {
  const parts = Object.entries(t.counts).map(([name, n]) => `${number(n)} ${name}`);
  if (t.leaseLost) parts.push("lost its lease");
  if (t.more) parts.push("left work");
  return parts.length === 0 ? "nothing to do" : parts.join(", ");
}

export function ticksRoute(app: Hono<DashboardEnv>, scope: DashboardScope): void {
  app.get("/ticks", async (c) => {
    const [ticks, recent] = await Promise.all([scope.tickq.ticks(), scope.tickq.ticks.recent()]);
    return page(
      c,
      "/ticks",
      "Ticks",
      html`<h2>Running now</h2><div class="scroll"><table><tr><th>tick</th><th>began</th><th>lease</th><th>left</th><th>queues</th><th>in flight</th></tr>${ticks.map(
        (t) =>
          html`<tr><td>${t.id}</td><td>${when(t.startedAt)}</td><td>${number(t.leaseMs)} ms</td><td>${
            t.leaseLeftMs === null ? html`<span class="tag">gone</span>` : `${number(t.leaseLeftMs)} ms`
          }</td><td>${t.queues.join(", ")}</td><td>${t.inflight > 0 ? html`<a href="${c.var.base}/running">${number(t.inflight)}</a>` : "0"}</td></tr>`,
      )}</table></div>${ticks.length === 0 ? html`<p class="muted">No tick is running now.</p>` : ""}
<h2>Recent ticks</h2><div class="scroll"><table id="recent"><tr><th>finished</th><th>tick</th><th>took</th><th>what it did</th></tr>${recent.map(
        (t) =>
          html`<tr data-tick="${t.id}"><td>${when(t.finishedAt)}</td><td>${t.id}</td><td>${number(t.durationMs)} ms</td><td data-did>${did(t)}</td></tr>`,
      )}</table></div>${recent.length === 0 ? html`<p class="muted">No tick has finished lately.</p>` : ""}`,
    );
  });
}
