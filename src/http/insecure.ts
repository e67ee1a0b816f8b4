// TICKQ_INSECURE=1 (local development, no secret) must not open the API to
// every web page the developer visits. Two guards:
//  - only loopback Host values are served, so a DNS-rebound name
//    (attacker.example resolving to 127.0.0.1) is refused;
//  - a request a browser marks as coming from another site (Origin or
//    Sec-Fetch-Site) is refused, so a cross-site form or fetch cannot
//    enqueue, tick, pause or retry. POST /jobs also needs application/json
//    (app.ts), which a page can only send to another origin after a CORS
//    preflight that tickq never answers.
import type { MiddlewareHandler } from "hono";

const LOOPBACK = /^(?:localhost|[a-z0-9-]+\.localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Whether a Host value (name, optional port) names this machine. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.replace(/:\d+$/, "");
  return LOOPBACK.test(name);
}

function originIsLoopback(origin: string): boolean {
  try {
    return isLoopbackHost(new URL(origin).host);
  } catch {
    return false;
  }
}

export function insecureGuard(basePath: string): MiddlewareHandler {
  return async (c, next) => {
    // Both: Node builds the URL from an absolute-form request line when there is one, else from Host.
    const host = c.req.header("host");
    const urlHost = new URL(c.req.url).host;
    if (!isLoopbackHost(urlHost) || (host !== undefined && !isLoopbackHost(host))) {
      return c.json(
        {
          error:
            "TICKQ_INSECURE serves only loopback hosts (localhost, 127.0.0.1, [::1]): set TICKQ_SECRET to serve any other",
          code: "INSECURE_HOST",
        },
        403,
      );
    }
    const origin = c.req.header("origin");
    const site = c.req.header("sec-fetch-site");
    if (
      (origin !== undefined && origin !== "null" && !originIsLoopback(origin)) ||
      origin === "null" ||
      site === "cross-site"
    ) {
      return c.json(
        {
          error: `TICKQ_INSECURE refuses requests from other sites (${basePath || "/"} is open without a secret)`,
          code: "CROSS_SITE",
        },
        403,
      );
    }
    await next();
  };
}

/** Printed when an app starts without auth. */
export const INSECURE_WARNING = [
  "",
  "!!! tickq: TICKQ_INSECURE is on: the API and the dashboard are open to anyone who can reach them, with no secret.",
  "!!! For local development only: only loopback hosts (localhost, 127.0.0.1, [::1]) are served.",
  "!!! Set TICKQ_SECRET (e.g. `openssl rand -hex 32`) and unset TICKQ_INSECURE for anything else.",
  "",
].join("\n");
