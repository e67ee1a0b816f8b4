// GET / and GET /favicon.ico, before auth: what a browser asks first. `/`
// sends a browser to the dashboard (when the app serves one) and tells
// anything else where the dashboard and /health are; the favicon is an
// empty answer, so a page of the dashboard logs no 401 for it.
import { Hono } from "hono/tiny";

/** `dashboard`: the dashboard's path when the app serves one. */
export function frontRoutes(basePath: string, dashboard: string | undefined): Hono {
  const app = new Hono();
  app.get("/favicon.ico", (c) => c.body(null, 204, { "cache-control": "public, max-age=86400" }));
  app.get("/", (c) => {
    if (dashboard && /\btext\/html\b/.test(c.req.header("accept") ?? "")) return c.redirect(dashboard, 302);
    return c.json({ service: "tickq", dashboard: dashboard ?? null, health: `${basePath}/health` });
  });
  return app;
}
