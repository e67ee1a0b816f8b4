// The example Worker. `fetch` serves your app's route, POST /signup, beside
// tickq's own (/tick, /jobs, /stats, /health, the dashboard at /dashboard);
// `scheduled`, the Cron Trigger of wrangler.toml, ticks every minute. A signup
// enqueues its email with a kick: a tick starts in ctx.waitUntil, so the email
// goes out within milliseconds rather than at the next cron.
import { tickqWorker } from "tickq/cloudflare";
import { dashboard } from "tickq/dashboard";
import { jobs, queues } from "./jobs.js";

export default tickqWorker({
  jobs,
  queues,
  dashboard: dashboard(),
  routes: (app) => {
    app.post("/signup", async (c) => {
      const body: unknown = await c.req.json().catch(() => undefined);
      const email = (body as { email?: unknown } | undefined)?.email;
      if (typeof email !== "string" || !email.includes("@")) {
        return c.json({ error: 'send {"email": "you@example.com"}' }, 400);
      }
      const jid = await c.var.tq.enqueue("sendWelcomeEmail", [email], { kick: true });
      return c.json({ welcome: "on its way", jid }, 201);
    });
  },
});
