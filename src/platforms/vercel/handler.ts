// tickq as a Vercel Function (Node or Edge runtime): Web-standard
// Request → Response handlers over the shared app, mounted at /api. Vercel
// Cron calls GET /api/tick with `Authorization: Bearer $CRON_SECRET`.
// Kicked ticks and fan-out run in Vercel's waitUntil, so the response waits
// for neither. Redis is Upstash over HTTP (UPSTASH_REDIS_REST_*, or Vercel
// KV's KV_REST_API_*), through restAdapter: fetch alone, no client library.
/**
 * tickq as a Vercel Function: `GET`, `POST` and `fetch` handlers over the app, mounted at `/api`.
 *
 * @module tickq/vercel
 */

import { checkCronParser } from "../../recurring/declare.js";
import type { JobRegistry, Tickq, WaitUntil } from "../../index.js";
import { buildEdge, credentialsOf, kicksByDefault, type Edge, type EdgeOptions } from "../../http/edge.js";
import { logError, UNAVAILABLE } from "../../http/errors.js";
import { restFromEnv } from "../../http/rest-from-env.js";
import { vercelClient } from "../../http/throttle.js";

/**
 * Every {@link tickq!TickqOptions | TickqOptions} option, with `redis` optional (a `restAdapter` built from the environment
 * unless given); the app's `kick`, `maxParallel`, `tick`, `routes` and `dashboard`, as a Worker takes
 * them; and Vercel's own below.
 */
export type TickqVercelOptions<J extends JobRegistry> = EdgeOptions<J> & {
  /** Where settings come from; default process.env. */
  env?: Record<string, string | undefined>;
  /** Mount point; default "/api" (the file api/index.ts, with vercel.json's rewrite). */
  basePath?: string;
  /** Keeps kicked ticks and fan-out alive after the response: `waitUntil` from @vercel/functions; default Vercel's request context (what it reads). */
  waitUntil?: WaitUntil;
};

/**
 * What `waitUntil` from @vercel/functions does, without the dependency: the
 * platform puts each request's context behind this symbol. Outside Vercel
 * there is none, and the promise simply runs in-process.
 */
export const vercelWaitUntil: WaitUntil = (promise) => {
  const holder = (globalThis as Record<symbol, unknown>)[Symbol.for("@vercel/request-context")] as
    | { get?(): { waitUntil?: WaitUntil } | undefined }
    | undefined;
  holder?.get?.()?.waitUntil?.(promise);
};

/**
 * Vercel Function handlers over the app: export `GET` and `POST` from `api/index.ts` (Node or Edge
 * runtime). Vercel Cron calls `GET /api/tick` with `CRON_SECRET`. Redis is Upstash over HTTP, from
 * `UPSTASH_REDIS_REST_URL` and `UPSTASH_REDIS_REST_TOKEN` (or Vercel KV's `KV_REST_API_*`).
 * @example
 * // api/index.ts
 * export const { GET, POST } = tickqVercel({ jobs, kick: true });
 */
export function tickqVercel<J extends JobRegistry>(options: TickqVercelOptions<J>) {
  // At load, not at the first request: a cron schedule without `cron` fails the deploy, naming the fix.
  checkCronParser(options.schedules, options.cron);
  let edge: Edge<J> | undefined;
  const { env: given, basePath, waitUntil, ...rest } = options;
  const build = () => {
    const env = given ?? process.env;
    const redis = () => restFromEnv(env, "in the project's environment variables");
    return buildEdge(rest as EdgeOptions<J>, env, redis, {
      basePath: basePath ?? "/api",
      waitUntil: waitUntil ?? vercelWaitUntil,
      clientOf: vercelClient,
    });
  };
  const handle = async (request: Request): Promise<Response> => {
    try {
      edge ??= build();
    } catch (error) {
      // A setting that stops the function from starting: the caller learns nothing of it, the log learns it masked.
      logError("the Vercel function cannot start", error, credentialsOf(given ?? process.env));
      return Response.json(UNAVAILABLE, { status: 503 });
    }
    return edge.app.fetch(request);
  };
  return {
    /** Handles a GET request (Vercel's named export). */
    GET: handle,
    /** Handles a POST request (Vercel's named export). */
    POST: handle,
    /** Handles any request: for a runtime that takes one `fetch` handler. */
    fetch: handle,
    /** The app's tickq, kicking in Vercel's waitUntil: for your own routes and server actions. */
    tickq(): Tickq<J> {
      edge ??= build();
      return edge.tickq.scope({
        waitUntil: waitUntil ?? vercelWaitUntil,
        kick: kicksByDefault(edge.settings, options.kick),
      });
    },
  };
}
