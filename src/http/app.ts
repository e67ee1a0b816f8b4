// The HTTP face of tickq, shared by every runtime (Node, Cloudflare Workers,
// Vercel): POST|GET /tick, POST /jobs, GET /stats, GET /schedules, GET /health,
// and the jobs API (routes/: /jobs…, /queues…, /stats/history).
// hono/tiny: Hono with its PatternRouter, 2.4 KB gzipped less in a Worker
// than the default SmartRouter (RegExp + Trie routers) for a few dozen
// routes; the route files use it too, or the default router comes back.
/**
 * The HTTP app (Hono) that every runtime serves: `/tick`, `/jobs`, `/stats`, `/health` and the jobs API routes.
 *
 * @module tickq/app
 */
import { Hono } from "hono/tiny";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import type { BulkJobOf, JobRegistry, Tickq, TickOptions, WaitUntil } from "../index.js";
import { checkAllSecrets, requireAccess, secretsOf } from "./auth.js";
import type { Dashboard } from "./dashboard-slot.js";
import { fanOutStarter, type SelfFetch } from "./fanout.js";
import { answerError, bodyTooLarge } from "./errors.js";
import { INSECURE_WARNING, insecureGuard } from "./insecure.js";
import { redisThrottle, type ClientOf } from "./throttle.js";
import { readJobsBody } from "./jobs-body.js";
import { frontRoutes } from "./routes/front.js";
import { healthRoutes } from "./routes/health.js";
import { jobRoutes } from "./routes/jobs.js";
import { queueRoutes } from "./routes/queues.js";
import { statsRoutes } from "./routes/stats.js";
import { workflowRoutes } from "./routes/workflows.js";
import { metricsRoutes } from "./routes/metrics.js";
import { scopeRequests, tickRoute, type TickqEnv } from "./scope.js";

export type { TickqEnv } from "./scope.js";

/** Options of `createApp`: the tickq it serves, its secrets, and the tick that `/tick` runs. */
export interface AppOptions<J extends JobRegistry = JobRegistry> {
  /** The tickq the routes use (`createTickq`). */
  tickq: Tickq<J>;
  /**
   * Bearer secrets that open every route and the dashboard (TICKQ_SECRET; several while rotating);
   * none of any kind means no auth (only with `insecure`). Each is 16 characters or more of
   * A-Z a-z 0-9 - . _ ~ + / and trailing "=" (TickqError BAD_OPTIONS otherwise).
   */
  secrets: (string | undefined)[];
  /** Secrets that only start ticks, POST or GET /tick (Vercel's CRON_SECRET). */
  tickSecrets?: (string | undefined)[];
  /** Secrets that only read: every GET route, nothing that changes anything (TICKQ_READ_SECRET). */
  readSecrets?: (string | undefined)[];
  /** Secrets that only scrape `GET /metrics` (TICKQ_METRICS_SECRET): a Prometheus server reads no job. */
  metricsSecrets?: (string | undefined)[];
  /**
   * Serve without auth: for local development only. Only loopback Host values are served
   * (no DNS rebinding), and POST /jobs needs `content-type: application/json` (no cross-site form).
   */
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
  /**
   * The app's own URL for fan-out, basePath included (TICKQ_PUBLIC_URL). Fan-out never sends to a
   * URL a request names: with maxParallel, one of publicUrl, selfFetch or listeningUrl is required.
   */
  publicUrl?: string;
  /** How fan-out requests reach the app, e.g. a Worker's service binding to itself; default fetch to publicUrl. */
  selfFetch?: SelfFetch;
  /** Where the app listens (startServer sets it): fan-out's target when there is no publicUrl. */
  listeningUrl?: () => string;
  /**
   * Who a request comes from, for slowing down repeated auth failures (10 a minute per client):
   * the entries set what their platform vouches for (Node: the socket's address; Workers:
   * cf-connecting-ip; Vercel: x-real-ip). Undefined: no throttling.
   */
  clientOf?: ClientOf;
  /** Keeps background work alive where a request has no execution context (Vercel's waitUntil); default in-process. */
  waitUntil?: WaitUntil;
  /** Your own routes, on the same app, before auth: `c.var.tq` is the app's tickq, kicking in this request's background. */
  routes?: (app: Hono<TickqEnv<J>>) => void;
  /**
   * The web dashboard at /dashboard: `dashboard()` from "tickq/dashboard". Browsers log in with one of
   * `secrets` (open with `insecure` and no secret). Left out, it is not bundled.
   */
  dashboard?: Dashboard;
  /** An error the host has logged already (the Node server logs Redis being down once): answered, not logged again. */
  logged?: (error: unknown) => boolean;
}

/**
 * The HTTP app (Hono) over a tickq: `/tick`, `/jobs`, `/stats`, `/health`, the jobs API routes, your
 * `routes` and, when given, the dashboard. Throws when no secret is set and `insecure` is not.
 * @example
 * const app = createApp({ tickq, secrets: [env.TICKQ_SECRET, env.CRON_SECRET] });
 * export default app; // Request → Response
 */
export function createApp<J extends JobRegistry>(options: AppOptions<J>): Hono<TickqEnv<J>> {
  // Every secret is checked before anything is served: a secret no request could match, or a short one, fails the start.
  checkAllSecrets({
    admin: options.secrets,
    read: options.readSecrets,
    tick: options.tickSecrets,
    metrics: options.metricsSecrets,
  });
  const secrets = secretsOf(options.secrets, options.readSecrets, options.tickSecrets, options.metricsSecrets);
  const open = secrets.admin.length + secrets.read.length + secrets.tick.length + secrets.metrics.length === 0;
  if (open && !options.insecure)
    throw new Error(
      "createApp needs a secret: set TICKQ_SECRET or CRON_SECRET (16 characters or more: `openssl rand -hex 32`); for local development only, TICKQ_INSECURE=1 (the option insecure: true) serves without one",
    );
  const tickq = options.tickq as Tickq<JobRegistry>;
  // Fan-out is refused here, at start, when nothing configured says where to send it.
  const fanOut = fanOutStarter({
    tickq,
    maxParallel: options.maxParallel,
    publicUrl: options.publicUrl,
    selfFetch: options.selfFetch,
    listeningUrl: options.listeningUrl,
    basePath: options.basePath,
    secret: secrets.admin[0] ?? secrets.tick[0],
  });
  const scope = { ...options, tickq, fanOut };
  const basePath = options.basePath ?? "";
  const throttle = options.clientOf ? redisThrottle(tickq, options.clientOf) : undefined;
  const app = options.basePath ? new Hono<TickqEnv<J>>().basePath(options.basePath) : new Hono<TickqEnv<J>>();

  if (open) {
    console.warn(INSECURE_WARNING);
    app.use("*", insecureGuard(basePath));
  }
  app.use("*", scopeRequests(scope));
  app.route("/", healthRoutes(tickq, secrets, { basePath, throttle, logged: options.logged })); // before auth: open to load balancers and uptime checks, details for a caller with a secret
  // The dashboard has its own login (a cookie, not a bearer header): mounted before the API's auth. TICKQ_SECRET
  // logs in, TICKQ_READ_SECRET logs in to look only; with neither (CRON_SECRET alone) it is not served at all.
  const viewers = [...secrets.admin, ...secrets.read];
  const served = options.dashboard !== undefined && (open || viewers.length > 0);
  app.route("/", frontRoutes(basePath, served ? `${basePath}/dashboard` : undefined));
  options.routes?.(app);

  if (options.dashboard && served) {
    app.route(
      "/dashboard",
      options.dashboard({
        tickq,
        secrets: viewers,
        readSecrets: secrets.read,
        insecure: open,
        basePath: `${basePath}/dashboard`,
        throttle,
      }),
    );
  }
  if (!open) app.use("*", requireAccess({ secrets, basePath, throttle }));

  const runTick = tickRoute(scope);
  app.post("/tick", runTick);
  app.get("/tick", runTick); // Vercel Cron sends GET

  const maxSize = options.maxBodyBytes ?? 1024 * 1024;
  app.post("/jobs", bodyLimit({ maxSize, onError: (c) => c.json(bodyTooLarge(maxSize), 413) }), async (c) => {
    if (open && !isJson(c.req.header("content-type"))) {
      return c.json({ error: "POST /jobs needs content-type: application/json", code: "UNSUPPORTED_MEDIA_TYPE" }, 415);
    }
    let input: unknown;
    try {
      input = JSON.parse(await c.req.text());
    } catch {
      return c.json({ error: "POST /jobs: the body is not valid JSON", code: "BAD_ARGS" }, 400);
    }
    const body = readJobsBody(input);
    if (!body.ok) return c.json({ error: body.error, code: "BAD_ARGS" }, 400);
    if (body.ordered.length > 0) {
      await c.var.tq.enqueueOrderedBulk(body.ordered);
      const ids = body.ordered.map((j) => j.id);
      return c.json(body.single ? { id: ids[0] } : { ids }, 201);
    }
    const jids = await c.var.tq.enqueueBulk(body.jobs as BulkJobOf<J>[]);
    return c.json(body.single ? { jid: jids[0] } : { jids }, 201);
  });

  app.route("/", statsRoutes(scope.tickq));
  app.route("/", metricsRoutes(scope.tickq));
  app.get("/schedules", async (c) => c.json(await c.var.tq.schedules()));
  app.route("/", jobRoutes(scope.tickq));
  app.route("/", queueRoutes(scope.tickq));
  app.route("/", workflowRoutes(scope.tickq, maxSize));

  app.notFound((c) => c.json({ error: noRoute(c.req.method, c.req.path, basePath), code: "NO_ROUTE" }, 404));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    const all = [...secrets.admin, ...secrets.read, ...secrets.tick, ...secrets.metrics];
    return answerError(c, error, c.get("role") !== undefined, all, options.logged);
  });
  return app;
}

const isJson = (type: string | undefined) => type !== undefined && /^application\/json\s*(;|$)/i.test(type);

// A platform that hands the app paths outside its basePath (a Netlify function's config.path that is
// not "/api/*", a Vercel file elsewhere than basePath says) 404s on every route: say where it serves.
function noRoute(method: string, path: string, basePath: string): string {
  const outside = basePath !== "" && path !== basePath && !path.startsWith(`${basePath}/`);
  return `no route ${method} ${path}${outside ? `: tickq's app serves under ${basePath} (the basePath option)` : ""}`;
}
