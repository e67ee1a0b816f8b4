// The HTTP face of tickq, shared by every runtime (Node, Cloudflare Workers,
// Vercel): POST|GET /tick, POST /jobs, GET /stats, GET /schedules, GET /health,
// and the jobs API (routes/: /jobs…, /queues…, /stats/history).
// hono/tiny: Hono with its PatternRouter, 2.4 KB gzipped less in a Worker
// than the default SmartRouter (RegExp + Trie routers) for a few dozen
// routes; the route files use it too, or the default router comes back.
import { Hono } from "hono/tiny";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { TickqError } from "../src/errors.js";
import type { BulkJobOf, JobRegistry, Tickq, TickOptions, WaitUntil } from "../src/index.js";
import { checkSecrets, requireSecret } from "./auth.js";
import type { Dashboard } from "./dashboard/types.js";
import type { SelfFetch } from "./fanout.js";
import { readJobsBody } from "./jobs-body.js";
import { statusOf } from "./status.js";
import { healthRoutes } from "./routes/health.js";
import { jobRoutes } from "./routes/jobs.js";
import { queueRoutes } from "./routes/queues.js";
import { statsRoutes } from "./routes/stats.js";
import { scopeRequests, tickRoute, type TickqEnv } from "./scope.js";

export type { TickqEnv } from "./scope.js";

export interface AppOptions<J extends JobRegistry = JobRegistry> {
  tickq: Tickq<J>;
  /**
   * Accepted bearer secrets (TICKQ_SECRET, CRON_SECRET); none means no auth (only with `insecure`).
   * Each may only hold A-Z a-z 0-9 - . _ ~ + / and trailing "=" (TickqError BAD_OPTIONS otherwise).
   */
  secrets: (string | undefined)[];
  /** Serve without auth: for local development only. */
  insecure?: boolean;
  /** Options of the tick that /tick runs. */
  tick?: TickOptions;
  /** Largest accepted POST /jobs body; default 1 MiB. */
  maxBodyBytes?: number;
  /** Mount point, e.g. "/api" on Vercel. */
  basePath?: string;
  /** Enqueues through the app (POST /jobs, `c.var.tq`) kick a tick at once unless they say `kick: false`; default false. */
  kick?: boolean;
  /**
   * Fan-out: a tick that ends with work left starts more ticks through the
   * app's own /tick URL, up to this many live at once (counted in Redis), and
   * a tick the app starts waits for a free slot. Default: off.
   */
  maxParallel?: number;
  /** The app's own URL for fan-out, basePath included (TICKQ_PUBLIC_URL); default the request's origin. */
  publicUrl?: string;
  /** How fan-out requests reach the app, e.g. a Worker's service binding to itself; default fetch. */
  selfFetch?: SelfFetch;
  /** Keeps background work alive where a request has no execution context (Vercel's waitUntil); default in-process. */
  waitUntil?: WaitUntil;
  /** Your own routes, on the same app, before auth: `c.var.tq` is the app's tickq, kicking in this request's background. */
  routes?: (app: Hono<TickqEnv<J>>) => void;
  /**
   * The web dashboard at /dashboard: `dashboard()` from "tickq/dashboard". Browsers log in with one of
   * `secrets` (open with `insecure` and no secret). Left out, it is not bundled.
   */
  dashboard?: Dashboard;
}

/**
 * @example
 * const app = createApp({ tickq, secrets: [env.TICKQ_SECRET, env.CRON_SECRET] });
 * export default app; // Request → Response
 */
export function createApp<J extends JobRegistry>(options: AppOptions<J>): Hono<TickqEnv<J>> {
  const scope = { ...options, tickq: options.tickq as Tickq<JobRegistry> };
  const app = options.basePath ? new Hono<TickqEnv<J>>().basePath(options.basePath) : new Hono<TickqEnv<J>>();

  app.use("*", scopeRequests(scope));
  app.route("/", healthRoutes(scope.tickq)); // before auth: open to load balancers and uptime checks
  options.routes?.(app);

  checkSecrets(options.secrets); // a secret bearerAuth could never match is refused now, not silently on every request
  const secrets = options.secrets.filter((s): s is string => Boolean(s));
  // The dashboard has its own login (a cookie, not a bearer header): mounted before the API's auth.
  if (options.dashboard) {
    const basePath = `${options.basePath ?? ""}/dashboard`;
    app.route("/dashboard", options.dashboard({ tickq: scope.tickq, secrets, insecure: Boolean(options.insecure), basePath }));
  }
  if (secrets.length > 0) app.use("*", requireSecret(secrets));
  else if (!options.insecure) throw new Error("createApp needs a secret (TICKQ_SECRET or CRON_SECRET), or insecure: true for local development");

  const runTick = tickRoute(scope);
  app.post("/tick", runTick);
  app.get("/tick", runTick); // Vercel Cron sends GET

  const maxSize = options.maxBodyBytes ?? 1024 * 1024;
  app.post(
    "/jobs",
    bodyLimit({ maxSize, onError: (c) => c.json({ error: `body over ${maxSize} bytes` }, 413) }),
    async (c) => {
      let input: unknown;
      try {
        input = JSON.parse(await c.req.text());
      } catch {
        return c.json({ error: "body is not valid JSON" }, 400);
      }
      const body = readJobsBody(input);
      if (!body.ok) return c.json({ error: body.error }, 400);
      if (body.ordered.length > 0) {
        await c.var.tq.enqueueOrderedBulk(body.ordered);
        const ids = body.ordered.map((j) => j.id);
        return c.json(body.single ? { id: ids[0] } : { ids }, 201);
      }
      const jids = await c.var.tq.enqueueBulk(body.jobs as BulkJobOf<J>[]);
      return c.json(body.single ? { jid: jids[0] } : { jids }, 201);
    },
  );

  app.route("/", statsRoutes(scope.tickq));
  app.get("/schedules", async (c) => c.json(await c.var.tq.schedules()));
  app.route("/", jobRoutes(scope.tickq));
  app.route("/", queueRoutes(scope.tickq));

  app.notFound((c) => c.json({ error: `no route ${c.req.method} ${c.req.path}` }, 404));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    const status = statusOf(error);
    if (status !== undefined) return c.json({ error: (error as TickqError).message, code: (error as TickqError).code }, status);
    console.error("tickq: request failed:", error);
    return c.json({ error: "internal error" }, 500);
  });
  return app;
}
