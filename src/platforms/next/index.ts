// tickq inside a Next.js app (App Router): route handlers over the app for one catch-all route file,
// app/api/tickq/[...path]/route.ts, mounted at /api/tickq. Kicked ticks and fan-out run in Next's
// `after()`, which the app passes in (tickq does not depend on next), so the response waits for
// neither and the platform keeps the function alive until they end. Runs on the Node and Edge runtimes.
/**
 * tickq inside a Next.js app: `tickqNext` gives the route handlers of one catch-all route file.
 *
 * @module tickq/next
 */
import type { JobRegistry, Tickq } from "../../index.js";
import { buildEdge, credentialsOf, kicksByDefault, type Edge, type EdgeOptions } from "../../http/edge.js";
import { logError, UNAVAILABLE } from "../../http/errors.js";
import { restFromEnv } from "../../http/rest-from-env.js";
import { checkCronParser } from "../../recurring/declare.js";

/**
 * Every {@link tickq!TickqOptions | TickqOptions} option, with `redis` optional (Upstash's REST API from
 * `UPSTASH_REDIS_REST_URL` and `UPSTASH_REDIS_REST_TOKEN` unless given), the app's `kick`, `maxParallel`,
 * `tick`, `routes` and `dashboard`, and Next's own below.
 */
export type TickqNextOptions<J extends JobRegistry> = EdgeOptions<J> & {
  /** `after` from "next/server": runs kicked ticks and fan-out after the response. */
  after: (task: Promise<unknown>) => void;
  /** The route's path; default "/api/tickq" (the file app/api/tickq/[...path]/route.ts). */
  basePath?: string;
  /** Where settings and secrets come from (TICKQ_SECRET…); default process.env. */
  env?: Record<string, string | undefined>;
};

/** A route handler: Next passes the request (and a context tickq does not need). */
export type NextRouteHandler = (request: Request) => Promise<Response>;

/** What `tickqNext` answers: the route file's exports, and the tickq for your own routes and server actions. */
export interface TickqNext<J extends JobRegistry> {
  /** Answers GET requests (the route file's named export). */
  GET: NextRouteHandler;
  /** Answers HEAD requests (the route file's named export). */
  HEAD: NextRouteHandler;
  /** Answers POST requests (the route file's named export). */
  POST: NextRouteHandler;
  /** Answers PUT requests (the route file's named export). */
  PUT: NextRouteHandler;
  /** Answers PATCH requests (the route file's named export). */
  PATCH: NextRouteHandler;
  /** Answers DELETE requests (the route file's named export). */
  DELETE: NextRouteHandler;
  /** The app's tickq, kicking in `after()`: call it inside a request (a route handler or a server action). */
  tickq(): Tickq<J>;
}

/**
 * Route handlers serving tickq's routes (`/tick`, `/jobs`, `/stats`, `/health`…) and the dashboard under
 * `/api/tickq`, built at the first request.
 * @example
 * // app/api/tickq/[...path]/route.ts
 * import { after } from "next/server";
 * export const { GET, HEAD, POST, PUT, PATCH, DELETE } = tickqNext({ jobs, after });
 */
export function tickqNext<J extends JobRegistry>(options: TickqNextOptions<J>): TickqNext<J> {
  // At load, not at the first request: a cron schedule without `cron` fails the build, naming the fix.
  checkCronParser(options.schedules, options.cron);
  const { after, basePath, env: given, ...rest } = options;
  const env = () => given ?? process.env;
  const waitUntil = (promise: Promise<unknown>) => after(promise);
  let edge: Edge<J> | undefined;
  // Next may import the route file while building, where no secret is set: build at the first request.
  const build = () =>
    buildEdge(rest as EdgeOptions<J>, env(), () => restFromEnv(env()), {
      basePath: (basePath ?? "/api/tickq").replace(/\/+$/, ""),
      waitUntil,
    });
  const handle: NextRouteHandler = async (request) => {
    try {
      edge ??= build();
    } catch (error) {
      logError("the Next.js route cannot start", error, credentialsOf(env()));
      return Response.json(UNAVAILABLE, { status: 503 });
    }
    return edge.app.fetch(request);
  };
  return {
    GET: handle,
    HEAD: handle,
    POST: handle,
    PUT: handle,
    PATCH: handle,
    DELETE: handle,
    tickq: () => {
      edge ??= build();
      return edge.tickq.scope({ waitUntil, kick: kicksByDefault(edge.settings, options.kick) });
    },
  };
}
