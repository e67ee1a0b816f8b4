// The session cookie, read and written by hand: hono/cookie's general
// helpers (prefixes, signed cookies, quoting, every attribute checked) cost
// 0.9 KB gzipped of the Worker for one cookie whose name is fixed and whose
// value is base64url and dots (session.ts), verified by its HMAC once read.
import type { Context } from "hono";

/** What session.ts writes; a value of anything else is skipped, as hono/cookie skips what it cannot read. */
const VALUE = /^[A-Za-z0-9_.-]*$/;

/** The first readable value of cookie `name` in the request (browsers send the most specific path first). */
export function readCookie(c: Context, name: string): string | undefined {
  for (const pair of (c.req.header("cookie") ?? "").split(";")) {
    const eq = pair.indexOf("=");
    const value = pair.slice(eq + 1).trim();
    if (eq > 0 && pair.slice(0, eq).trim() === name && VALUE.test(value)) return value;
  }
  return undefined;
}

/** Sets cookie `name` (a value from session.ts, "" to delete with maxAgeSec 0) for `path`: HttpOnly, SameSite=Strict, Secure over HTTPS. */
export function writeCookie(c: Context, name: string, value: string, cookie: { path: string; secure: boolean; maxAgeSec: number }): void {
  const secure = cookie.secure ? "; Secure" : "";
  c.header("Set-Cookie", `${name}=${value}; Max-Age=${cookie.maxAgeSec}; Path=${cookie.path}; HttpOnly${secure}; SameSite=Strict`, { append: true });
}
