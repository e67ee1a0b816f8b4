// Logging in to a dashboard served by app.request, as a browser would: the
// session cookie from POST /login, and the CSRF token a page's forms carry.
import type { Hono } from "hono";
import { expect } from "vitest";

type App = Pick<Hono, "request">;

export interface Browser {
  cookie: string;
  get(path: string): Promise<{ status: number; html: string; location: string | null }>;
  /** A form POST from the dashboard's own page (same-origin), with `fields` as given. */
  post(path: string, fields: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
  /** The CSRF token of the page at `path`. */
  token(path?: string): Promise<string>;
}

export const tokenIn = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";

export async function login(app: App, secret: string, base = "/dashboard"): Promise<Browser> {
  const res = await app.request(`${base}/login`, {
    method: "POST",
    body: new URLSearchParams({ secret }),
    headers: { "sec-fetch-site": "same-origin" },
  });
  expect(res.status).toBe(303);
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0]!;
  return asBrowser(app, cookie, base);
}

export function asBrowser(app: App, cookie: string, base = "/dashboard"): Browser {
  const browser: Browser = {
    cookie,
    async get(path) {
      const res = await app.request(path, { headers: { cookie } });
      return { status: res.status, html: await res.text(), location: res.headers.get("location") };
    },
    post: async (path, fields, headers = {}) =>
      app.request(path, {
        method: "POST",
        body: new URLSearchParams(fields),
        headers: { cookie, "sec-fetch-site": "same-origin", ...headers },
      }),
    async token(path = base) {
      return tokenIn((await browser.get(path)).html);
    },
  };
  return browser;
}
