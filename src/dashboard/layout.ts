// The page shell (menu, stylesheet, logout) and the small pieces every page
// uses: a button that POSTs with the CSRF token, a time, a JSON preview.
import type { Context } from "hono";
import { html, raw } from "hono/html";
import { terminalJson } from "../printable.js";
import { pageScript } from "./script.js";
import { GROUPS } from "./sections.js";
import { randomToken } from "./session.js";
import { STYLE } from "./style.js";
import type { DashboardEnv } from "../http/dashboard-slot.js";
import type { Html } from "./html.js";
import { visibleControls } from "./visible.js";

export type { Html };
type Ctx = Context<DashboardEnv>;

/**
 * Sent with every page: no framing (clickjacking), no caching of job data, no referrer leaving the site,
 * and no script but the one carrying this response's nonce, which it returns.
 */
export function pageHeaders(c: Context): string {
  const nonce = randomToken();
  c.header(
    "Content-Security-Policy",
    `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  );
  c.header("X-Frame-Options", "DENY");
  c.header("Cache-Control", "no-store");
  c.header("Referrer-Policy", "same-origin");
  return nonce;
}

export function shell(title: string, body: Html): Html {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · tickq</title><style>${raw(STYLE)}</style></head><body>${body}</body></html>`;
}

/** A full dashboard page: the menu with `section` marked, a notice from the last action (?done=), then the body. */
export function page(
  c: Ctx,
  section: string,
  title: string,
  body: Html,
  status: 200 | 400 | 404 | 409 | 413 | 500 | 503 = 200,
) {
  const base = c.var.base;
  const notice = c.req.query("done");
  const nonce = pageHeaders(c);
  const rendered = shell(
    title,
    html`<header><b>tickq</b>${menu(base, section)}${postButton(c, "/logout", "Log out")}</header>
<main><h1>${title}</h1>${notice ? html`<p class="warn" role="status">${notice}</p>` : ""}${body}</main>${pageScript(nonce)}`,
  );
  return visibleHtml(c, rendered, status);
}

/** `rendered` sent as the page, every control and bidi character in its text shown escaped (visible.ts). */
export async function visibleHtml(c: Ctx, rendered: Html, status: 200 | 400 | 404 | 409 | 413 | 500 | 503 = 200) {
  return c.html(visibleControls(String(await rendered)), status);
}

/**
 * The groups, each with its pages. On a wide screen the groups make the top row and the current one's
 * pages a row below it (style.ts); on a phone the "Menu" label opens every group: a checkbox, no script.
 */
function menu(base: string, section: string): Html {
  return html`<label for="menu" class="menu">Menu</label><input type="checkbox" id="menu" hidden><nav>${GROUPS.map(
    (g) => {
      const on = g.pages.some((p) => p.path === section);
      // A group of one page is its own link, without a row of one.
      const pages =
        g.pages.length > 1
          ? html`<div>${g.pages.map((p) => html`<a href="${base}${p.path}"${p.path === section ? raw(' class="on"') : ""}>${p.label}</a>`)}</div>`
          : "";
      return html`<div class="g${on ? " on" : ""}"><a href="${base}${g.pages[0].path}">${g.label}</a>${pages}</div>`;
    },
  )}</nav>`;
}

export interface PostOptions {
  /** Extra form fields. */
  fields?: Record<string, string>;
  danger?: boolean;
  /** Asks before sending (data-confirm, read by script.ts: an attribute, HTML-escaped, never script). */
  confirm?: string;
  /** Where to come back to; default this page. */
  back?: string;
}

/** A one-button form that POSTs to `path` under the dashboard with the CSRF token, and comes back to this page. */
export function postButton(c: Ctx, path: string, label: string, options: PostOptions = {}): Html {
  const here = new URL(c.req.url);
  here.searchParams.delete("done");
  const fields = { _csrf: c.var.csrf, back: options.back ?? here.pathname + here.search, ...options.fields };
  return html`<form class="inline" method="post" action="${c.var.base}${path}"${options.confirm ? html` data-confirm="${options.confirm}"` : ""}>${Object.entries(
    fields,
  ).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  )}<button${options.danger ? raw(' class="danger"') : ""}>${label}</button></form>`;
}

/**
 * A time (epoch ms), with how long ago or ahead it is: the page's script shows it in the browser's time
 * zone; the UTC time stays in its title (on hover), and is the text without script.
 */
export function when(ms: number | null | undefined): Html {
  if (ms === null || ms === undefined) return html`<span class="muted">—</span>`;
  // Times come from Redis, where any client can write a score of inf or a created_at of 1e300:
  // toISOString() would throw on them and fail the whole page, every other job on it too.
  if (Number.isNaN(new Date(ms).getTime())) return html`<span class="muted">${String(ms)} ms (not a date)</span>`;
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}" title="${iso.slice(0, 19).replace("T", " ")} UTC">${iso.slice(0, 19).replace("T", " ")} UTC</time> <span class="muted">${relative(ms - Date.now())}</span>`;
}

function relative(deltaMs: number): string {
  const text = span(Math.abs(deltaMs));
  return deltaMs < 0 ? `${text} ago` : `in ${text}`;
}

function span(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 120
    ? `${s} s`
    : s < 7200
      ? `${Math.round(s / 60)} min`
      : s < 172_800
        ? `${Math.round(s / 3600)} h`
        : `${Math.round(s / 86_400)} d`;
}

/** A queue's latency (ms the job that runs next has waited): short words, the exact ms in `data-ms`. */
export function latency(ms: number): Html {
  return html`<span data-ms="${ms}" title="${number(ms)} ms">${ms < 1_000 ? "< 1 s" : span(ms)}</span>`;
}

/** A value as short JSON for a table cell. */
export function preview(value: unknown, max = 80): string {
  // terminalJson: a bidi override in args (U+202E) would otherwise reverse what the cell shows.
  const text = value === undefined ? "" : terminalJson(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export const number = (n: number) => n.toLocaleString("en-US");
