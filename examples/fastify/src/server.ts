// A Fastify service: your app's route, POST /signup, and tickq registered under the prefix /tickq
// (its routes /tickq/tick, /tickq/jobs, /tickq/stats, /tickq/health, the dashboard at
// /tickq/dashboard), ticking every second in this process. A signup enqueues its email with a kick,
// so it goes out at once instead of at the next tick.
// Settings: REDIS_URL (default redis://127.0.0.1:6379), TICKQ_SECRET (16+ characters),
// TICKQ_INSECURE=1 (no auth: local development only), PORT (default 3000; 0 for any free port),
// TICKQ_PREFIX.
import Fastify from "fastify";
import { Redis } from "ioredis";
import { ioredisAdapter } from "tickq/adapters/ioredis";
import { dashboard } from "tickq/dashboard";
import { tickqFastify } from "tickq/fastify";
import { jobs } from "./jobs.js";

const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const tickq = tickqFastify({ redis: ioredisAdapter(redis), jobs, dashboard: dashboard() });

const app = Fastify();
await app.register(tickq, { prefix: "/tickq" });

app.post("/signup", async (request, reply) => {
  const email: unknown = (request.body as { email?: unknown } | undefined)?.email;
  if (typeof email !== "string" || !email.includes("@")) {
    return reply.code(400).send({ error: 'send {"email": "you@example.com"}' });
  }
  const jid = await tickq.tickq.enqueue("sendWelcomeEmail", [email], { kick: true });
  return reply.code(201).send({ welcome: "on its way", jid });
});

const url = await app.listen({ port: Number(process.env.PORT ?? 3000), host: "127.0.0.1" });
console.log(`example: listening on ${url}`);
console.log(`  curl -X POST -H "content-type: application/json" -d '{"email":"you@example.com"}' ${url}/signup`);
console.log(`  dashboard: ${url}/tickq/dashboard (log in with TICKQ_SECRET)`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    await app.close(); // waits for the running tick and the kicked ones (the plugin's onClose)
    redis.disconnect();
    process.exit(0);
  });
}
