// tickq on Netlify Functions (v2: Request in, Response out): `fetch` serves the app, with kicked ticks
// in the request's `context.waitUntil`; `scheduled` is a scheduled function (`config.schedule`) that
// ticks until the work or its budget runs out. Redis is Upstash over HTTP from the env, or any adapter.
/**
 * tickq on Netlify Functions: `fetch` serves the app, `scheduled` ticks.
 *
 * @module tickq/netlify
 */
import type { JobRegistry, Tickq, TickReport } from "../../index.js";
import { tickUntilDone } from "../../http/drain.js";
import { buildEdge, credentialsOf, kicksByDefault, type Edge, type EdgeOptions } from "../../http/edge.js";
import { logError, UNAVAILABLE } from "../../http/errors.js";
import { restFromEnv } from "../../http/rest-from-env.js";
import type { ClientOf } from "../../http/throttle.js";

/** The part of Netlify's function `Context` tickq uses. */
export interface NetlifyContextLike {
  /** Keeps a promise alive after the response. */
  waitUntil(promise: Promise<unknown>): void;
  /** The caller's address, as Netlify saw it. */
  ip?: string;
}

/**
 * Every {@link tickq!TickqOptions | TickqOptions} option, with `redis` optional (Upstash's REST API from
 * `UPSTASH_REDIS_REST_URL` and `UPSTASH_REDIS_REST_TOKEN` unless given), the app's `kick`,
 * `maxParallel`, `tick`, `routes` and `dashboard`, and Netlify's own below.
 */
export type TickqNetlifyOptions<J extends JobRegistry> = EdgeOptions<J> & {
  /** Where settings and secrets come from; default process.env (the site's environment variables). */
  env?: Record<string, string | undefined>;
  /** Mount point: the function's `config.path` without its `/*`; default "/api". */
  basePath?: string;
  /** Wall time a scheduled run may spend ticking; default 25,000 ms (a scheduled function gets 30 s). */
  scheduledBudgetMs?: number;
  /** Called with each tick's report of a scheduled run. */
  onTick?: (report: TickReport) => void;
};

/** The caller's address, as Netlify recorded it in the context (the throttle's key). */
const netlifyClient: ClientOf = (c) => (c.env as { context?: NetlifyContextLike } | undefined)?.context?.ip;

/**
 * Netlify function handlers over the app: `export default tickq.fetch` in a function whose
 * `config.path` is `"/api/*"`, and `export default tickq.scheduled` in one whose `config.schedule` is
 * `"* * * * *"`.
 * @example
 * // netlify/functions/tickq.ts
 * export default tickqNetlify({ jobs, kick: true }).fetch;
 * export const config = { path: "/api/*" };
 */
export function tickqNetlify<J extends JobRegistry>(options: TickqNetlifyOptions<J>) {
  const { env: given, basePath, scheduledBudgetMs, onTick, ...rest } = options;
  const env = given ?? process.env;
  let edge: Edge<J> | undefined;
  const build = () =>
    buildEdge(rest as EdgeOptions<J>, env, () => restFromEnv(env, "in the site's environment variables"), {
      basePath: basePath ?? "/api",
      clientOf: netlifyClient,
    });
  const ready = (): Edge<J> | undefined => {
    try {
      edge ??= build();
      return edge;
    } catch (error) {
      logError("the Netlify function cannot start", error, credentialsOf(env));
      return undefined;
    }
  };
  return {
    /** Serves the app; kicked ticks and fan-out run in the request's `context.waitUntil`. */
    fetch(request: Request, context: NetlifyContextLike): Response | Promise<Response> {
      const built = ready();
      if (!built) return Response.json(UNAVAILABLE, { status: 503 });
      // Hono's execution context: the app keeps kicked ticks alive through it, as on a Worker.
      const executionCtx = {
        waitUntil: (promise: Promise<unknown>) => context.waitUntil(promise),
        passThroughOnException: () => {},
        props: {},
      };
      return built.app.fetch(request, { context }, executionCtx);
    },
    /** A scheduled function's run: ticks until no work is left or `scheduledBudgetMs` is spent. */
    async scheduled(_request: Request, _context?: NetlifyContextLike): Promise<Response> {
      const built = ready();
      if (!built) throw new Error("tickq: the Netlify function cannot start: see the error logged above");
      const reports = await tickUntilDone(
        built.tickq as Tickq<JobRegistry>,
        scheduledBudgetMs ?? 25_000,
        built.tick,
        built.fanOut,
      );
      for (const report of reports) onTick?.(report);
      const succeeded = reports.reduce((n, r) => n + r.succeeded, 0);
      return Response.json({ ticks: reports.length, succeeded, more: reports.at(-1)?.more ?? false });
    },
    /** The site's tickq, kicking in `context.waitUntil`: for your own functions. */
    tickq(context: NetlifyContextLike): Tickq<J> {
      const built = edge ?? build();
      edge = built;
      return built.tickq.scope({
        waitUntil: (promise) => context.waitUntil(promise),
        kick: kicksByDefault(built.settings, options.kick),
      });
    },
  };
}
