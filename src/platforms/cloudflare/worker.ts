// tickq as a Cloudflare Worker: `fetch` serves the app (and your routes),
// `scheduled` (a Cron Trigger) ticks until the work or the budget runs out,
// inside waitUntil. Kicked ticks and fan-out run in the request's own
// ctx.waitUntil. Redis is Upstash over HTTP (Workers cannot open TCP to
// Redis), through restAdapter: fetch alone, no client library in the bundle.
/**
 * tickq as a Cloudflare Worker: `fetch` serves the app, `scheduled` ticks.
 *
 * @module tickq/cloudflare
 */
import type { ExecutionContext } from "hono";
import { restAdapter } from "../../redis/rest.js";
import { checkCronParser } from "../../recurring/declare.js";
import type { JobRegistry, Tickq } from "../../index.js";
import { numberSetting, tickUntilDone } from "../../http/drain.js";
import { buildEdge, credentialsOf, kicksByDefault, type Edge, type EdgeOptions } from "../../http/edge.js";
import type { TickqEnvVars } from "../../http/env.js";
import { logError, UNAVAILABLE } from "../../http/errors.js";
import { workerClient } from "../../http/throttle.js";

/** The Worker's bindings tickq reads: Upstash's REST URL and token, tickq's settings and secrets. */
export interface WorkerEnv extends TickqEnvVars {
  /** The Upstash REST URL (a secret or a var). */
  UPSTASH_REDIS_REST_URL?: string;
  /** The Upstash REST token (a secret). */
  UPSTASH_REDIS_REST_TOKEN?: string;
  /** Wall time a cron trigger may spend ticking; default 25,000 ms (every-minute crons get 30 s). */
  TICKQ_CRON_BUDGET_MS?: string;
  /** A service binding to this Worker itself, for fan-out (a Worker's fetch of its own URL may not reach it). */
  TICKQ_SELF?: {
    /** Sends a request to this Worker. */
    fetch(request: Request): Promise<Response>;
  };
}

/**
 * Every {@link tickq!TickqOptions | TickqOptions} option, with `redis` optional (a `restAdapter` built from the env unless
 * given), plus the app's: `kick` (true, or {@link tickq!KickOptions | KickOptions}), `maxParallel` (fan-out), `tick`
 * ({@link tickq!TickOptions | TickOptions} of every tick the app runs), `routes` and `dashboard` (as in `AppOptions`).
 */
export type TickqWorkerOptions<J extends JobRegistry> = EdgeOptions<J>;

/**
 * A Worker's default export: `fetch` serves the app (with your `routes`), `scheduled` ticks on each
 * Cron Trigger until the work or `TICKQ_CRON_BUDGET_MS` runs out. Redis is Upstash over HTTP,
 * from `UPSTASH_REDIS_REST_URL` and `UPSTASH_REDIS_REST_TOKEN`.
 * @example
 * export default tickqWorker({
 *   jobs: { sendEmail: async ([to]: [string]) => { … } },
 *   kick: true,
 *   routes: (app) => app.post("/signup", async (c) => c.json({ jid: await c.var.tq.enqueue("sendEmail", ["a@b.c"]) })),
 * });
 */
export function tickqWorker<J extends JobRegistry>(options: TickqWorkerOptions<J>) {
  // At load, not at the first request: a cron schedule without `cron` fails the deploy, naming the fix.
  checkCronParser(options.schedules, options.cron);
  // A Worker gets its env per request; build once per env object.
  const built = new WeakMap<WorkerEnv, Edge<J>>();
  const forEnv = (env: WorkerEnv): Edge<J> => {
    let entry = built.get(env);
    if (!entry) {
      const redis = () => {
        if (!env.UPSTASH_REDIS_REST_URL || !env.UPSTASH_REDIS_REST_TOKEN) {
          throw new Error(
            "tickq: set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (wrangler secret put …; for wrangler dev, in .dev.vars)",
          );
        }
        return restAdapter({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN });
      };
      const self = env.TICKQ_SELF;
      entry = buildEdge(options, env, redis, {
        clientOf: workerClient,
        ...(self ? { selfFetch: (request) => self.fetch(request) } : {}),
      });
      built.set(env, entry);
    }
    return entry;
  };

  return {
    /** Serves the app; answers 503 (and logs why, credentials masked) when the env cannot build it. */
    fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Response | Promise<Response> {
      try {
        return forEnv(env).app.fetch(request, env, ctx);
      } catch (error) {
        // A setting that stops the Worker from starting: the caller learns nothing of it, the log learns it masked.
        logError("the Worker cannot start", error, credentialsOf(env as unknown as Record<string, unknown>));
        return Response.json(UNAVAILABLE, { status: 503 });
      }
    },
    /** A Cron Trigger: ticks in `ctx.waitUntil` until no work is left or the budget is spent. */
    scheduled(_controller: unknown, env: WorkerEnv, ctx: ExecutionContext): void {
      let built: Edge<J>;
      try {
        built = forEnv(env);
      } catch (error) {
        logError("the Worker cannot start", error, credentialsOf(env as unknown as Record<string, unknown>));
        throw new Error("tickq: the Worker cannot start: see the error logged above");
      }
      const { tickq, tick, fanOut } = built;
      const budget = numberSetting(env.TICKQ_CRON_BUDGET_MS, 25_000, "TICKQ_CRON_BUDGET_MS");
      // With fan-out on, a backlog is handed to parallel invocations at the first tick with work left.
      const onMore = fanOut;
      ctx.waitUntil(
        tickUntilDone(tickq as Tickq<JobRegistry>, budget, tick, onMore).then((reports) => {
          const done = reports.reduce((n, r) => n + r.succeeded, 0);
          console.log(`tickq: ${reports.length} tick(s), ${done} job(s) done, more: ${reports.at(-1)?.more ?? false}`);
        }),
      );
    },
    /** The tickq of this env, kicking in `ctx.waitUntil`: for your own fetch handler, queue consumer or Durable Object. */
    tickq(env: WorkerEnv, ctx: { waitUntil(promise: Promise<unknown>): void }): Tickq<J> {
      const { tickq, settings } = forEnv(env);
      return tickq.scope({
        waitUntil: (promise) => ctx.waitUntil(promise),
        kick: kicksByDefault(settings, options.kick),
      });
    },
  };
}
