// A plain Node service: your app's route, POST /signup, on tickq's server
// (its routes /tick, /jobs, /stats, /health, the dashboard at /dashboard, and
// a tick every second). A signup enqueues its email with a kick, so it goes
// out at once instead of at the next tick.
// Settings: REDIS_URL (default redis://127.0.0.1:6379), TICKQ_SECRET (16+
// characters), TICKQ_INSECURE=1 (no secret, no auth: local development only),
// PORT (default 3000; 0 for any free port), TICKQ_PREFIX.
import { dashboard } from "tickq/dashboard";
import { startServer, stopOnSignals } from "tickq/node";
import { jobs } from "./jobs.js";

const server = await startServer({
  redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
  secret: process.env.TICKQ_SECRET,
  // startServer reads no environment itself; without this, its own advice to set TICKQ_INSECURE=1 would do nothing.
  insecure: process.env.TICKQ_INSECURE === "1",
  port: Number(process.env.PORT ?? 3000),
  prefix: process.env.TICKQ_PREFIX,
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
  onTick: (report) => {
    const { succeeded, retried, dead } = report;
    if (succeeded + retried + dead > 0) console.log(`tick: ${succeeded} done, ${retried} retried, ${dead} dead`);
  },
}).catch((error: Error) => {
  console.error(`example: ${error.message}`);
  process.exit(1);
});

console.log(`example: listening on ${server.url}`);
console.log(`  curl -X POST -d '{"email":"you@example.com"}' ${server.url}/signup`);
console.log(`  dashboard: ${server.url}/dashboard (log in with TICKQ_SECRET)`);
stopOnSignals(() => server.close());
