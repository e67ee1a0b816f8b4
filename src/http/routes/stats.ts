// GET /stats (counters, sizes, lastTickAt, warnings) and GET
// /stats/history?days=N (processed and failed per UTC day, oldest first).
import { Hono } from "hono/tiny";
import { TickqError } from "../../errors.js";
import type { JobRegistry, Tickq } from "../../index.js";

export function statsRoutes(tickq: Tickq<JobRegistry>): Hono {
  const app = new Hono();
  app.get("/stats", async (c) => c.json(await tickq.stats()));
  app.get("/stats/history", async (c) => {
    const given = c.req.query("days");
    const days = given === undefined ? 30 : Number(given);
    if (given !== undefined && !/^\d+$/.test(given))
      throw new TickqError("BAD_ARGS", `days must be a whole number, got ${JSON.stringify(given)}`);
    return c.json({ days: await tickq.stats.history(days) });
  });
  return app;
}
