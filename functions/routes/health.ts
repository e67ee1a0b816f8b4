// GET /health, unauthenticated: 200 with the heartbeat's warnings (no tick
// lately while jobs wait, a queue no tick serves, the eviction policy) when
// Redis answers, 503 with the reason when it does not. One stats call.
import { Hono } from "hono/tiny";
import { TickqError } from "../../src/errors.js";
import type { JobRegistry, Tickq } from "../../src/index.js";

export function healthRoutes(tickq: Tickq<JobRegistry>): Hono {
  const app = new Hono();
  app.get("/health", async (c) => {
    try {
      const stats = await tickq.stats();
      return c.json({ ok: true, lastTickAt: stats.lastTickAt, warnings: stats.warnings });
    } catch (error) {
      // A TickqError's message says what failed and never holds a secret; anything else stays private.
      const reason = error instanceof TickqError ? error.message : "internal error";
      return c.json({ ok: false, error: reason, warnings: [] }, 503);
    }
  });
  return app;
}
