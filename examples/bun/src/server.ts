// A Bun service: your app's route, POST /signup, on tickq's app served by Bun.serve (its routes
// /tick, /jobs, /stats, /health, the dashboard at /dashboard), and a tick every second. A signup
// enqueues its email with a kick, so it goes out at once instead of at the next tick.
// Settings: REDIS_URL (default redis://127.0.0.1:6379), TICKQ_SECRET (16+ characters),
// TICKQ_INSECURE=1 (no auth: local development only), PORT (default 3000; 0 for any free port),
// TICKQ_PREFIX.
import { Redis } from "ioredis";
import { ioredisAdapter } from "tickq/adapters/ioredis";
import { serveBun } from "tickq/bun";
import { dashboard } from "tickq/dashboard";
import { jobs } from "./jobs.ts";

const redis = new Redis(Bun.env.REDIS_URL ?? "redis://127.0.0.1:6379");

const server = serveBun({
  redis: ioredisAdapter(redis),
  port: Number(Bun.env.PORT ?? 3000),
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

console.log(`example: listening on ${server.url}`);
console.log(`  curl -X POST -d '{"email":"you@example.com"}' ${server.url}/signup`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    await server.stop();
    redis.disconnect();
    process.exit(0);
  });
}
