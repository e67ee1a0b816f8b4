// `tickq dev`'s one-time login link: GET /dev/login/TOKEN opens a dashboard session, as the login
// form does with the secret, once. Only in dev, only for a loopback Host (a DNS-rebound name
// cannot use it), and the token is random, printed once, and spent on first use (a second
// visit answers 410 and the form still takes the secret).
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Hono } from "hono";
import { writeCookie } from "../../dashboard/cookie.js";
import { SESSION_COOKIE } from "../../dashboard/guard.js";
import { SESSION_MS, openSession } from "../../dashboard/session.js";
import type { TickqEnv } from "../../http/app.js";
import { isLoopbackHost } from "../../http/insecure.js";

export interface LoginLink {
  /** The path to print after the server's URL. */
  path: string;
  /** Adds the route to the app (startServer's `routes`). */
  route(app: Hono<TickqEnv>): void;
}

export function loginLink(secret: string, dashboardPath = "/dashboard"): LoginLink {
  let token: Buffer | undefined = randomBytes(24);
  const path = `/dev/login/${token.toString("base64url")}`;
  const spend = (given: string): boolean => {
    const asked = Buffer.from(given);
    const expected = token === undefined ? undefined : Buffer.from(token.toString("base64url"));
    if (!expected || asked.length !== expected.length || !timingSafeEqual(asked, expected)) return false;
    token = undefined;
    return true;
  };
  return {
    path,
    route(app) {
      app.get("/dev/login/:token", async (c) => {
        if (!isLoopbackHost(c.req.header("host"))) return c.text("the login link works on loopback only", 403);
        if (!spend(c.req.param("token"))) {
          return c.text(
            "this login link was used already or is wrong: log in with TICKQ_SECRET at /dashboard/login",
            410,
          );
        }
        writeCookie(c, SESSION_COOKIE, await openSession(secret, Date.now()), {
          path: dashboardPath,
          secure: false,
          maxAgeSec: SESSION_MS / 1000,
        });
        return c.redirect(dashboardPath, 303);
      });
    },
  };
}
