// An Express service: your app's route, POST /signup, and tickq mounted under /tickq (its routes
// /tickq/tick, /tickq/jobs, /tickq/stats, /tickq/health, the dashboard at /tickq/dashboard), ticking
// every second in this process. A signup enqueues its email with a kick, so it goes out at once
// instead of at the next tick.
// Settings: REDIS_URL (default redis://127.0.0.1:6379), TICKQ_SECRET (16+ characters),
// TICKQ_INSECURE=1 (no auth: local development only), PORT (default 3000; 0 for any free port),
// TICKQ_PREFIX.
import express from "express";
import { Redis } from "ioredis";
import { ioredisAdapter } from "tickq/adapters/ioredis";
import { dashboard } from "tickq/dashboard";
import { tickqExpress } from "tickq/express";
import { jobs } from "./jobs.js";

const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const tickq = tickqExpress({ redis: ioredisAdapter(redis), jobs, dashboard: dashboard() });

const app = express();
// Before any body parser: tickq reads its own request bodies.
app.use("/tickq", tickq);
app.use(express.json());

app.post("/signup", async (req, res) => {
  const email: unknown = req.body?.email;
  if (typeof email !== "string" || !email.includes("@")) {
    res.status(400).json({ error: 'send {"email": "you@example.com"}' });
    return;
  }
  const jid = await tickq.tickq.enqueue("sendWelcomeEmail", [email], { kick: true });
  res.status(201).json({ welcome: "on its way", jid });
});

const server = app.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", () => {
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : ""}`;
  console.log(`example: listening on ${url}`);
  console.log(`  curl -X POST -H "content-type: application/json" -d '{"email":"you@example.com"}' ${url}/signup`);
  console.log(`  dashboard: ${url}/tickq/dashboard (log in with TICKQ_SECRET)`);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close();
    // Waits for the running tick and the kicked ones before the process ends.
    void tickq.close().then(() => {
      redis.disconnect();
      process.exit(0);
    });
  });
}
