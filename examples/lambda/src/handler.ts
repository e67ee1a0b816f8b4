// An AWS Lambda function: your app's route, POST /signup, on tickq's app behind a Function URL (or
// API Gateway's HTTP API), and the same handler ticking on a schedule (EventBridge Scheduler with the
// input {"tickq":"tick"}, or an EventBridge rule). A signup enqueues its email with a kick: Lambda
// freezes the process once the handler returns, so the kicked tick runs before the response.
// Redis: Upstash's REST API (UPSTASH_REDIS_REST_URL and _TOKEN) unless REDIS_URL is set (ioredis
// over TCP, e.g. ElastiCache in the function's VPC). Secrets: TICKQ_SECRET (16+ characters).
import { Redis } from "ioredis";
import { ioredisAdapter } from "tickq/adapters/ioredis";
import { dashboard } from "tickq/dashboard";
import { tickqLambda } from "tickq/lambda";
import { jobs } from "./jobs.js";

const redisUrl = process.env.REDIS_URL;

export const handler = tickqLambda({
  // Without `redis`, tickq builds its REST adapter from UPSTASH_REDIS_REST_URL and _TOKEN.
  redis: redisUrl ? ioredisAdapter(new Redis(redisUrl)) : undefined,
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
