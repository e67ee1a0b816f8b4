// GET /queues (name, size, paused, lastServedAt), POST /queues/:name/pause
// and /resume.
import { Hono } from "hono/tiny";
import type { JobRegistry, Tickq } from "../../index.js";

export function queueRoutes(tickq: Tickq<JobRegistry>): Hono {
  const app = new Hono();
  app.get("/queues", async (c) => c.json({ queues: await tickq.queues.list() }));
  app.post("/queues/:name/pause", async (c) => {
    await tickq.queues.pause(c.req.param("name"));
    return c.json({ queue: c.req.param("name"), paused: true });
  });
  app.post("/queues/:name/resume", async (c) => {
    await tickq.queues.resume(c.req.param("name"));
    return c.json({ queue: c.req.param("name"), paused: false });
  });
  return app;
}
