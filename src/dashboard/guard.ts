// Every dashboard route but the login form: a signed session cookie (or an
// open dashboard under `insecure` with no secret), and for every state
// change a same-origin request (Sec-Fetch-Site, Origin) carrying the
// session's CSRF token in its form. Anything else: a redirect to the login
// form (GET) or 401/403.
import type { Context, MiddlewareHandler } from "hono";
import { timingSafeEqual } from "hono/utils/buffer";
import { readCookies } from "./cookie.js";
import type { DashboardEnv, DashboardScope, Session } from "../http/dashboard-slot.js";
import { csrfToken, randomToken, readSession } from "./session.js";

export const SESSION_COOKIE = "tickq_session";

const isRead = (method: string) => method === "GET" || method === "HEAD";

/** A browser sent it from one of the dashboard's own pages: no other site's form or script. */
export function sameOrigin(c: Context): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined && site !== "same-origin") return false;
  const origin = c.req.header("origin");
  if (origin === undefined) return true;
  // The request's own host, as the runtime saw it or as a proxy in front of it did.
  const hosts = [new URL(c.req.url).host, c.req.header("host"), c.req.header("x-forwarded-host")];
  try {
    return hosts.includes(new URL(origin).host);
  } catch {
    return false; // "null" (a sandboxed frame, a redirect chain) or garbage
  }
}

export const refuse = (c: Context, status: 401 | 403, why: string) => c.text(why, status);

export function guard(scope: DashboardScope): MiddlewareHandler<DashboardEnv> {
  // Open dashboards (insecure, no secret) still use CSRF tokens; their key is per instance, made on first use
  // (a Worker may not make random values at start-up).
  let openKey: string | undefined;
  return async (c, next) => {
    const session =
      scope.secrets.length === 0
        ? { nonce: "open", key: (openKey ??= randomToken()), expiresMs: Infinity }
        : await liveSession(c, scope);
    if (!session)
      return isRead(c.req.method) ? c.redirect(`${scope.basePath}/login`, 303) : refuse(c, 401, "log in first");
    c.set("session", session);
    c.set("csrf", await csrfToken(session));
    if (!isRead(c.req.method)) {
      if (scope.readSecrets?.includes(session.key) && c.req.path !== `${scope.basePath}/logout`) {
        return refuse(c, 403, "refused: this secret can only read (TICKQ_READ_SECRET)");
      }
      if (!sameOrigin(c)) return refuse(c, 403, "refused: a state change must come from the dashboard's own pages");
      const form = await c.req.parseBody();
      const token = typeof form._csrf === "string" ? form._csrf : "";
      if (!(await timingSafeEqual(token, c.var.csrf)))
        return refuse(c, 403, "refused: missing or wrong CSRF token (reload the page and try again)");
    }
    await next();
  };
}

/** The first session cookie that verifies and that no logout has ended. */
async function liveSession(c: Context, scope: DashboardScope): Promise<Session | null> {
  for (const value of readCookies(c, SESSION_COOKIE)) {
    const session = await readSession(value, scope.secrets, Date.now());
    if (session && !(await scope.tickq.guards.sessionEnded(session.nonce))) return session;
  }
  return null;
}
