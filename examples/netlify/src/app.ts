// The site's tickq: its app under /api (your route POST /api/signup, tickq's routes, the dashboard at
// /api/dashboard), shared by the two functions. Redis: Upstash's REST API from UPSTASH_REDIS_REST_URL
// and _TOKEN (the site's environment variables). Secrets: TICKQ_SECRET (16+ characters).
import { dashboard } from "tickq/dashboard";
import { tickqNetlify } from "tickq/netlify";
import { jobs } from "./jobs.js";

export const tickq = tickqNetlify({
  jobs,
  dashboard: dashboard(),
  routes: (app) => {
    app.post("/signup", async (c) => {
      const { email } = (await c.req.json().catch(() => ({}))) as { email?: unknown };
      if (typeof email !== "string" || !email.includes("@")) {
        return c.json({ error: 'send {"email": "you@example.com"}' }, 400);
      }
      const jid = await c.var.tq.enqueue("sendWelcomeEmail", [email], { kick: true });
      return c.json({ welcome: "on its way", jid }, 201);
    });
  },
});
