// GET /ticks: the live ticks (tq.ticks()), each with its lease: when it
// began, how much of its lease is left, the queues it serves, the jobs it
// holds. A tick whose lease is gone waits for the resurrector.
import type { Hono } from "hono";
import { html } from "hono/html";
import { number, page, when } from "../layout.js";
import type { DashboardEnv, DashboardScope } from "../types.js";

export function ticksRoute(app: Hono<DashboardEnv>, scope: DashboardScope): void {
  app.get("/ticks", async (c) => {
    const ticks = await scope.tickq.ticks();
    return page(
      c,
      "/ticks",
      "Live ticks",
      html`<div class="scroll"><table><tr><th>tick</th><th>began</th><th>lease</th><th>left</th><th>queues</th><th>in flight</th></tr>${ticks.map(
        (t) =>
          html`<tr><td>${t.id}</td><td>${when(t.startedAt)}</td><td>${number(t.leaseMs)} ms</td><td>${
            t.leaseLeftMs === null ? html`<span class="tag">gone</span>` : `${number(t.leaseLeftMs)} ms`
          }</td><td>${t.queues.join(", ")}</td><td>${t.inflight > 0 ? html`<a href="${c.var.base}/running">${number(t.inflight)}</a>` : "0"}</td></tr>`,
      )}</table></div>${ticks.length === 0 ? html`<p class="muted">No tick is running now.</p>` : ""}`,
    );
  });
}
