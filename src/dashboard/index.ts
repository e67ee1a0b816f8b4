// tickq's web dashboard ("tickq/dashboard"): server-rendered pages over the
// jobs API, served by the app itself on every runtime, behind the app's
// secret. Pass `dashboard()` to createApp (or the Worker, Vercel and Node
// entries) to mount it at /dashboard; leave it out and it is not bundled.
//
//   login.ts   the login form and the session cookie (session.ts)
//   guard.ts   session, origin and CSRF checks before every other route
//   form.ts    every POST body capped and parsed first, the login form's too
//   pages/     one file a page; actions.ts the POSTs; layout.ts the shell
// hono/tiny (PatternRouter), as the app's own routes: Hono from "hono" would
// bring back its default routers, 2.7 KB gzipped in a Worker with the dashboard.
/**
 * The web dashboard, mounted at `/dashboard` by passing `dashboard()` to the app or a runtime entry.
 *
 * @module tickq/dashboard
 */
import { Hono } from "hono/tiny";
import { html } from "hono/html";
import { statusOf } from "../http/status.js";
import { actionRoutes } from "./actions.js";
import { formBody } from "./form.js";
import { guard } from "./guard.js";
import { page } from "./layout.js";
import { loginRoutes, logoutRoute } from "./login.js";
import { jobRoute } from "./pages/job.js";
import { jobsRoutes } from "./pages/jobs.js";
import { locksRoute } from "./pages/locks.js";
import { orderedRoute } from "./pages/ordered.js";
import { overviewRoutes } from "./pages/overview.js";
import { queueRoutes } from "./pages/queues.js";
import { schedulesRoute } from "./pages/schedules.js";
import { ticksRoute } from "./pages/ticks.js";
import { workflowsRoute } from "./pages/workflows.js";
import { metricsRoute } from "./pages/metrics.js";
import type { Dashboard, DashboardEnv } from "../http/dashboard-slot.js";
import { printableErrorText } from "../printable.js";

export type { Dashboard, DashboardScope } from "../http/dashboard-slot.js";

/** Options of `dashboard()`. */
export interface DashboardOptions {
  /** How often the overview refreshes its figures (one stats call each), in ms; default 5,000, at least 1,000. */
  refreshMs?: number;
  /** Days in the overview's chart of processed and failed jobs; default 30. */
  historyDays?: number;
}

/**
 * The web dashboard, for `createApp({ dashboard })` or a runtime entry's `dashboard` option: queues,
 * jobs by state, ticks, schedules and history, behind the app's secrets.
 * @example
 * import { dashboard } from "tickq/dashboard";
 * const app = createApp({ tickq, secrets: [process.env.TICKQ_SECRET], dashboard: dashboard() });
 * // the browser opens /dashboard and logs in with TICKQ_SECRET
 */
export function dashboard(options: DashboardOptions = {}): Dashboard {
  const refreshMs = Math.max(1_000, options.refreshMs ?? 5_000);
  const historyDays = options.historyDays ?? 30;
  return (mounted) => {
    // The app builds the path from its basePath, and Hono's basePath("/api/") is valid: "/api//dashboard"
    // is no path Hono routes, nor one the session cookie's Path would match. One slash each.
    const scope = { ...mounted, basePath: mounted.basePath.replace(/\/{2,}/g, "/") };
    const app = new Hono<DashboardEnv>();
    app.use("*", async (c, next) => {
      c.set("base", scope.basePath);
      await next();
    });
    app.use("*", ...formBody); // before the login form: it reads a body without a session
    loginRoutes(app, scope);
    app.use("*", guard(scope));
    logoutRoute(app, scope);
    overviewRoutes(app, scope, { refreshMs, historyDays });
    queueRoutes(app, scope);
    jobsRoutes(app, scope);
    jobRoute(app, scope);
    schedulesRoute(app, scope);
    orderedRoute(app, scope);
    workflowsRoute(app, scope);
    locksRoute(app, scope);
    ticksRoute(app, scope);
    metricsRoute(app, scope);
    actionRoutes(app, scope);
    // Last: a path no page has is a page that says so, not the API's JSON answer behind it.
    app.all("*", (c) =>
      page(
        c,
        "",
        "Not found",
        html`<p class="warn" role="alert">No page here. <a href="${c.var.base}">Back to the overview</a>.</p>`,
        404,
      ),
    );
    app.onError((error, c) => {
      const status = statusOf(error);
      if (status === undefined) console.error(`tickq: dashboard request failed: ${printableErrorText(error)}`);
      const message =
        status === undefined ? "Something went wrong (the server's log has the details)." : (error as Error).message;
      return page(
        c,
        "",
        status === 404 ? "Not found" : "Could not do that",
        html`<p class="warn" role="alert">${message}</p>`,
        status ?? 500,
      );
    });
    return app;
  };
}
