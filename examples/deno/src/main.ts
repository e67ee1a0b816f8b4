// A Deno service: your app's route, POST /signup, on tickq's app served by Deno.serve (its routes
// /tick, /jobs, /stats, /health, the dashboard at /dashboard), ticked by Deno.cron every minute. A
// signup enqueues its email with a kick, so it goes out at once instead of at the next cron run.
// Redis: Upstash's REST API when UPSTASH_REDIS_REST_URL and _TOKEN are set (Deno Deploy), else
// ioredis over TCP to REDIS_URL (default redis://127.0.0.1:6379).
// Settings: TICKQ_SECRET (16+ characters), TICKQ_INSECURE=1 (no auth: local development only),
// PORT (default 8000; 0 for any free port), TICKQ_PREFIX.
import { Redis } from "ioredis";
import { ioredisAdapter } from "tickq/adapters/ioredis";
import { dashboard } from "tickq/dashboard";
import { serveDeno } from "tickq/deno";
import { jobs } from "./jobs.ts";

const overHttp = Deno.env.get("UPSTASH_REDIS_REST_URL") !== undefined;
const redis = overHttp ? undefined : new Redis(Deno.env.get("REDIS_URL") ?? "redis://127.0.0.1:6379");

const server = serveDeno({
  // Without `redis`, tickq builds its REST adapter from UPSTASH_REDIS_REST_URL and _TOKEN.
  redis: redis && ioredisAdapter(redis),
  port: Number(Deno.env.get("PORT") ?? 8000),
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

console.log(`example: listening on ${server.url} (Redis ${overHttp ? "over HTTP" : "over TCP"})`);
console.log(`  curl -X POST -d '{"email":"you@example.com"}' ${server.url}/signup`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    await server.shutdown();
    redis?.disconnect();
    Deno.exit(0);
  });
}
