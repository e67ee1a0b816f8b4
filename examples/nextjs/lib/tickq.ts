// The app's tickq, shared by tickq's route and the app's own: Redis over TCP with ioredis (REDIS_URL),
// kicked ticks in Next's after(). Settings and secrets come from the environment: TICKQ_SECRET (16+
// characters), TICKQ_INSECURE=1 (no auth: local development only), TICKQ_PREFIX.
import { Redis } from "ioredis";
import { after } from "next/server";
import { ioredisAdapter } from "tickq/adapters/ioredis";
import { dashboard } from "tickq/dashboard";
import { tickqNext } from "tickq/next";
import { jobs } from "./jobs";

// Connects at the first command, so `next build` (which loads this file) needs no Redis.
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { lazyConnect: true });

export const tickq = tickqNext({ redis: ioredisAdapter(redis), jobs, after, dashboard: dashboard() });
