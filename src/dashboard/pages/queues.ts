// GET /queues (each queue, its size, its latency, paused or not, last served) and
// GET /queues/:name (its jobs, next first, paginated, searchable by name),
// with pause and resume.
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import { jobTable, nameSearch } from "../job-table.js";
import { latency, number, page, postButton, when } from "../layout.js";
import type { DashboardEnv, DashboardScope } from "../../http/dashboard-slot.js";
import { PAGE_SIZE } from "./jobs.js";

const pauseButton = (c: Context<DashboardEnv>, name: string, paused: boolean) =>
  postButton(c, `/queues/${encodeURIComponent(name)}/${paused ? "resume" : "pause"}`, paused ? "Resume" : "Pause");

export function queueRoutes(app: Hono<DashboardEnv>, scope: DashboardScope): void {
  app.get("/queues", async (c) => {
    const queues = await scope.tickq.queues.list();
    return page(
      c,
      "/queues",
      "Queues",
      html`<div class="scroll"><table><tr><th>queue</th><th>waiting</th><th title="how long the oldest waiting job has waited">latency</th><th>last served</th><th></th></tr>${queues.map(
        (q) =>
          html`<tr data-queue="${q.name}"><td><a href="${c.var.base}/queues/${encodeURIComponent(q.name)}">${q.name}</a>${q.paused ? html` <span class="tag">paused</span>` : ""}</td><td>${number(
            q.size,
          )}</td><td>${latency(q.latencyMs)}</td><td>${when(q.lastServedAt)}</td><td>${pauseButton(c, q.name, q.paused)}</td></tr>`,
      )}</table></div>${queues.length === 0 ? html`<p class="muted">No queues yet.</p>` : ""}`,
    );
  });

  app.get("/queues/:name", async (c) => {
    const name = c.req.param("name");
    const [found, queues] = await Promise.all([
      scope.tickq.jobs.list("queued", {
        queue: name,
        name: c.req.query("name") || undefined,
        cursor: c.req.query("cursor") || null,
        limit: PAGE_SIZE,
      }),
      scope.tickq.queues.list(),
    ]);
    const queue = queues.find((q) => q.name === name);
    // A typo in the URL: no pause button for a queue that does not exist.
    if (!queue) {
      return page(
        c,
        "/queues",
        "Not found",
        html`<p class="warn" role="alert">No queue named ${name}. <a href="${c.var.base}/queues">Every queue</a>.</p>`,
        404,
      );
    }
    const { paused } = queue;
    return page(
      c,
      "/queues",
      `Queue ${name}`,
      html`<p class="bar">${number(queue.size)} waiting, the oldest for ${latency(queue.latencyMs)}${paused ? html` <span class="tag">paused</span>` : ""} ${pauseButton(c, name, paused)}</p>${nameSearch(c)}${jobTable(
        c,
        found,
        {
          when: "position",
          errors: true,
        },
      )}`,
    );
  });
}
