// tickq as a Cloudflare Worker: `fetch` serves the app, `scheduled` (a Cron
// Trigger) ticks until the work or the budget runs out, inside waitUntil.
// Redis is Upstash over HTTP (Workers cannot open TCP to Redis).
import { Redis } from "@upstash/redis/cloudflare";
import type { ExecutionContext } from "hono";
import { upstashAdapter } from "../../adapters/upstash.js";
import { createTickq, type JobRegistry, type QueueOrder, type Schedules, type Tickq, type TickOptions } from "../../src/index.js";
import { createApp } from "../app.js";
import { numberSetting, tickSettings, tickUntilDone } from "../drain.js";

export interface WorkerEnv {
  UPSTASH_REDIS_REST_URL: string;
  UPSTASH_REDIS_REST_TOKEN: string;
  TICKQ_SECRET?: string;
  CRON_SECRET?: string;
  /** Key prefix; default "tickq:". */
  TICKQ_PREFIX?: string;
  /** Wall time a cron trigger may spend ticking; default 25,000 ms (every-minute crons get 30 s). */
  TICKQ_CRON_BUDGET_MS?: string;
  /** Budget of one tick; default 10,000 ms. */
  TICKQ_TICK_BUDGET_MS?: string;
  /** Jobs per fetch; default 50. */
  TICKQ_BATCH?: string;
}

export interface TickqWorkerOptions<J extends JobRegistry> {
  jobs: J;
  queues?: QueueOrder;
  /** Recurring jobs, enqueued by the cron trigger's ticks (README, "Recurring jobs"). */
  schedules?: Schedules<keyof J & string>;
}

/**
 * @example
 * export default tickqWorker({ jobs: { sendEmail: async ([to]: [string]) => { … } } });
 */
export function tickqWorker<J extends JobRegistry>(options: TickqWorkerOptions<J>) {
  // A Worker gets its env per request; build once per env object.
  const built = new WeakMap<WorkerEnv, { tickq: Tickq<J>; tick: TickOptions; app: ReturnType<typeof createApp> }>();
  const forEnv = (env: WorkerEnv) => {
    let entry = built.get(env);
    if (!entry) {
      if (!env.UPSTASH_REDIS_REST_URL || !env.UPSTASH_REDIS_REST_TOKEN) {
        throw new Error("tickq: set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (wrangler secret put …)");
      }
      const redis = new Redis({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN, automaticDeserialization: false, enableTelemetry: false });
      const tickq = createTickq({ redis: upstashAdapter(redis), jobs: options.jobs, queues: options.queues, prefix: env.TICKQ_PREFIX, schedules: options.schedules });
      const tick = tickSettings(env);
      entry = { tickq, tick, app: createApp({ tickq, secrets: [env.TICKQ_SECRET, env.CRON_SECRET], tick }) };
      built.set(env, entry);
    }
    return entry;
  };

  return {
    fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Response | Promise<Response> {
      try {
        return forEnv(env).app.fetch(request, env, ctx);
      } catch (error) {
        return Response.json({ error: (error as Error).message }, { status: 500 });
      }
    },
    scheduled(_controller: unknown, env: WorkerEnv, ctx: ExecutionContext): void {
      const { tickq, tick } = forEnv(env);
      const budget = numberSetting(env.TICKQ_CRON_BUDGET_MS, 25_000, "TICKQ_CRON_BUDGET_MS");
      ctx.waitUntil(
        tickUntilDone(tickq, budget, tick).then((reports) => {
          const done = reports.reduce((n, r) => n + r.succeeded, 0);
          console.log(`tickq: ${reports.length} tick(s), ${done} job(s) done, more: ${reports.at(-1)?.more ?? false}`);
        }),
      );
    },
  };
}
