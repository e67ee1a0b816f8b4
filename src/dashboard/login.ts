// GET/POST /login and POST /logout. The form posts the secret once; the
// answer is a session cookie (session.ts) that is HttpOnly, SameSite=Strict
// and Secure when the request came over https. A wrong secret is a 401 and
// the form again; a login posted from another site (login CSRF) is a 403.
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import { writeCookie } from "./cookie.js";
import { SESSION_COOKIE, refuse, sameOrigin } from "./guard.js";
import { pageHeaders, shell } from "./layout.js";
import { SESSION_MS, matchSecret, openSession } from "./session.js";
import type { DashboardEnv, DashboardScope } from "../http/dashboard-slot.js";

const isHttps = (c: Context) =>
  new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https";

function loginForm(c: Context<DashboardEnv>, error: string, status: 200 | 401) {
  pageHeaders(c);
  return c.html(
    shell(
      "Log in",
      html`<form class="login" method="post" action="${c.var.base}/login"><h1>tickq</h1>
<label for="secret">Secret (TICKQ_SECRET)</label><input id="secret" name="secret" type="password" autocomplete="current-password" required autofocus>
${error ? html`<p class="warn" role="alert">${error}</p>` : ""}<button>Log in</button></form>`,
    ),
    status,
  );
}

/** Before the guard: the login form must answer without a session. */
export function loginRoutes(app: Hono<DashboardEnv>, scope: DashboardScope): void {
  app.get("/login", (c) => (scope.secrets.length === 0 ? c.redirect(scope.basePath, 303) : loginForm(c, "", 200)));
  app.post("/login", async (c) => {
    if (!sameOrigin(c)) return refuse(c, 403, "refused: log in from the dashboard's own form");
    const client = scope.throttle?.clientOf(c);
    const wait = client === undefined ? 0 : await scope.throttle!.blockedFor(client);
    if (wait > 0) {
      c.header("retry-after", String(Math.ceil(wait / 1000)));
      return c.text("too many failed attempts from this client: try again later", 429);
    }
    const form = await c.req.parseBody();
    const matched = await matchSecret(typeof form.secret === "string" ? form.secret : "", scope.secrets);
    if (!matched) {
      if (client !== undefined) await scope.throttle!.failed(client);
      return loginForm(c, "Wrong secret.", 401);
    }
    writeCookie(c, SESSION_COOKIE, await openSession(matched, Date.now()), {
      path: scope.basePath,
      secure: isHttps(c),
      maxAgeSec: SESSION_MS / 1000,
    });
    return c.redirect(scope.basePath, 303);
  });
}

/** After the guard: logging out is a state change like any other (CSRF token required); it ends the session in Redis too. */
export function logoutRoute(app: Hono<DashboardEnv>, scope: DashboardScope): void {
  app.post("/logout", async (c) => {
    const { nonce, expiresMs } = c.var.session;
    if (Number.isFinite(expiresMs)) await scope.tickq.guards.endSession(nonce, expiresMs - Date.now());
    writeCookie(c, SESSION_COOKIE, "", { path: scope.basePath, secure: isHttps(c), maxAgeSec: 0 });
    return c.redirect(`${scope.basePath}/login`, 303);
  });
}
