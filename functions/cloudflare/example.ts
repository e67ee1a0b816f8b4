// The example Worker that wrangler.toml deploys: the example jobs, ticked
// every minute by the Cron Trigger and on demand by POST /tick, and one
// route of "your app" that enqueues with a kick, so the email goes out
// within milliseconds instead of at the next cron. The dashboard is at
// /dashboard (log in with TICKQ_SECRET).
import { dashboard } from "../../src/dashboard/index.js";
import { exampleJobs, exampleQueues } from "../../src/platforms/node/example-jobs.js";
import { tickqWorker } from "../../src/platforms/cloudflare/worker.js";

export default tickqWorker({
  jobs: exampleJobs,
  queues: exampleQueues,
  dashboard: dashboard(),
  routes: (app) => {
    app.post("/signup", async (c) => {
      const { email } = await c.req.json<{ email: string }>();
      const jid = await c.var.tq.enqueue("sendWelcomeEmail", [email], { kick: true });
      return c.json({ welcome: "on its way", jid }, 201);
    });
  },
});
