// The session cookie, read and written by hand: hono/cookie's general
// helpers (prefixes, signed cookies, quoting, every attribute checked) cost
// 0.9 KB gzipped of the Worker for one cookie whose name is fixed and whose
// value is base64url and dots (session.ts), verified by its HMAC once read.
import type { Context } from "hono";

/** What session.ts writes; a value of anything else is skipped, as hono/cookie skips what it cannot read. */
const VALUE = /^[A-Za-z0-9_.-]*$/;

/** Most values of one cookie name worth trying: a browser sends one per path and domain it was set for. */
const MAX_VALUES = 8;

/**
 * Every readable value of cookie `name` in the request, in the order sent
 * (the most specific path first). All of them, not the first: a junk cookie
 * of the same name set for a longer path would otherwise hide the good one.
 */
export function readCookies(c: Context, name: string): string[] {
  const values: string[] = [];
  for (const pair of (c.req.header("cookie") ?? "").split(";")) {
    const eq = pair.indexOf("=");
    const value = pair.slice(eq + 1).trim();
    if (eq > 0 && pair.slice(0, eq).trim() === name && VALUE.test(value) && values.length < MAX_VALUES)
      values.push(value);
  }
  return values;
}

/** Sets cookie `name` (a value from session.ts, "" to delete with maxAgeSec 0) for `path`: HttpOnly, SameSite=Strict, Secure over HTTPS. */
export function writeCookie(
  c: Context,
  name: string,
  value: string,
  cookie: { path: string; secure: boolean; maxAgeSec: number },
): void {
  const secure = cookie.secure ? "; Secure" : "";
  c.header(
    "Set-Cookie",
    `${name}=${value}; Max-Age=${cookie.maxAgeSec}; Path=${cookie.path}; HttpOnly${secure}; SameSite=Strict`,
    { append: true },
  );
}
