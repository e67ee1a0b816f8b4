// tickq as a Vercel Function (Node or Edge runtime): Web-standard
// Request → Response handlers over the shared app, mounted at /api. Vercel
// Cron calls GET /api/tick with `Authorization: Bearer $CRON_SECRET`.
// Redis is Upstash over HTTP (UPSTASH_REDIS_REST_*, or Vercel KV's KV_REST_API_*).
import { Redis } from "@upstash/redis";
import { upstashAdapter } from "../../adapters/upstash.js";
import { createTickq, type JobRegistry, type QueueOrder, type Schedules } from "../../src/index.js";
import { createApp } from "../app.js";
import { tickSettings } from "../drain.js";

export interface TickqVercelOptions<J extends JobRegistry> {
  jobs: J;
  queues?: QueueOrder;
  /** Recurring jobs, enqueued by Vercel Cron's ticks (README, "Recurring jobs"). */
  schedules?: Schedules<keyof J & string>;
  /** Where settings come from; default process.env. */
  env?: Record<string, string | undefined>;
  /** Mount point; default "/api" (the file api/index.ts, with vercel.json's rewrite). */
  basePath?: string;
}

/**
 * @example
 * // api/index.ts
 * export const { GET, POST } = tickqVercel({ jobs });
 */
export function tickqVercel<J extends JobRegistry>(options: TickqVercelOptions<J>) {
  let app: ReturnType<typeof createApp> | undefined;
  const build = () => {
    const env = options.env ?? process.env;
    const url = env.UPSTASH_REDIS_REST_URL ?? env.KV_REST_API_URL;
    const token = env.UPSTASH_REDIS_REST_TOKEN ?? env.KV_REST_API_TOKEN;
    if (!url || !token) throw new Error("tickq: set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN in the project's environment variables");
    const redis = new Redis({ url, token, automaticDeserialization: false, enableTelemetry: false });
    const tickq = createTickq({ redis: upstashAdapter(redis), jobs: options.jobs, queues: options.queues, prefix: env.TICKQ_PREFIX, schedules: options.schedules });
    return createApp({ tickq, secrets: [env.TICKQ_SECRET, env.CRON_SECRET], tick: tickSettings(env), basePath: options.basePath ?? "/api" });
  };
  const handle = async (request: Request): Promise<Response> => {
    try {
      app ??= build();
    } catch (error) {
      return Response.json({ error: (error as Error).message }, { status: 500 });
    }
    return app.fetch(request);
  };
  return { GET: handle, POST: handle, fetch: handle };
}
