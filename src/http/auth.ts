// Bearer auth for every route but /health and your own, with three kinds of
// secret, each allowed only what it needs:
//   admin (TICKQ_SECRET)       every route
//   read  (TICKQ_READ_SECRET)  GET routes only, but GET /tick (it ticks)
//   tick  (CRON_SECRET)        /tick only: a cron needs nothing else
//   metrics (TICKQ_METRICS_SECRET)  GET /metrics only: a scraper reads no job
// and a fan-out request's credential (tick-credential.ts), which starts the
// one reserved tick it names. Tokens are compared in constant time. A
// refusal is a 401 (no or wrong credential) or 403 (a secret not allowed
// this route) with a JSON error and a stable code.
//
// Tokens keep RFC 6750's alphabet (`[A-Za-z0-9._~+/-]+=*`), as a header
// value can carry nothing else safely: a secret outside it, or shorter than
// 16 characters, is refused at start, so a misconfiguration shows at once
// and a guessable secret is never served.
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { timingSafeEqual } from "hono/utils/buffer";
import { TickqError } from "../errors.js";
import { TICK_ID_HEADER } from "./fanout.js";
import { TICK_AUTH_HEADER, verifyTick } from "./tick-credential.js";
import type { Throttle } from "./throttle.js";

/** Every token a bearer header carries; any other one is answered as malformed. */
export const BEARER_TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;

/** The shortest secret accepted: 16 characters of the token alphabet is 96 bits and more. */
export const MIN_SECRET_LENGTH = 16;

/**
 * What a caller's credential allows.
 * @inline
 */
export type Role = "admin" | "read" | "tick" | "metrics";

/** The accepted secrets of each kind; empty strings and undefined are ignored. */
export interface Secrets {
  admin: string[];
  read: string[];
  tick: string[];
  metrics: string[];
}

const present = (list: readonly (string | undefined)[] | undefined): string[] =>
  (list ?? []).filter((s): s is string => Boolean(s));

export function secretsOf(
  admin: readonly (string | undefined)[],
  read?: readonly (string | undefined)[],
  tick?: readonly (string | undefined)[],
  metrics?: readonly (string | undefined)[],
): Secrets {
  return { admin: present(admin), read: present(read), tick: present(tick), metrics: present(metrics) };
}

/**
 * Throws TickqError BAD_OPTIONS for a secret no request could ever match, or
 * one too short to resist guessing. The message names the secret by its
 * position and setting (never its value: the platform handlers log it,
 * and a caller may see the code).
 */
export function checkSecrets(
  secrets: readonly (string | undefined)[],
  who = "createApp",
  setting = "TICKQ_SECRET, or the secrets option",
): void {
  secrets.forEach((secret, i) => {
    if (!secret) return;
    const name = `${who}: secret ${i + 1} of ${secrets.length} (${setting})`;
    if (!BEARER_TOKEN.test(secret)) {
      const why = BEARER_TOKEN.test(secret.trim())
        ? "it has whitespace at its start or end (a newline from `echo`?)"
        : /^[A-Za-z0-9._~+/=-]+$/.test(secret)
          ? `it has "=" before its end ("=" may only be trailing padding)`
          : "it has a character outside that set";
      throw new TickqError(
        "BAD_OPTIONS",
        `${name} can never authenticate: a bearer secret may only hold the characters A-Z a-z 0-9 - . _ ~ + / followed by optional "=" padding, and ${why}. ` +
          "Choose a new one, e.g. the output of `openssl rand -hex 32`.",
      );
    }
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new TickqError(
        "BAD_OPTIONS",
        `${name} is shorter than ${MIN_SECRET_LENGTH} characters, short enough to guess: choose a new one, e.g. the output of \`openssl rand -hex 32\`.`,
      );
    }
  });
}

/** What an entry point calls each kind of secret, in its messages: its environment variable and its option. */
export type SecretSettings = { admin: string; read: string; tick: string; metrics: string };

/** createApp's options (`secrets`, `readSecrets`, …). */
export const APP_SECRET_SETTINGS: SecretSettings = {
  admin: "TICKQ_SECRET, or the secrets option",
  read: "read-only: TICKQ_READ_SECRET, or the readSecrets option",
  tick: "ticks only: CRON_SECRET, or the tickSecrets option",
  metrics: "GET /metrics only: TICKQ_METRICS_SECRET, or the metricsSecrets option",
};

/** Checks every kind of secret at start (see checkSecrets), naming them as `settings` says. */
export function checkAllSecrets(
  s: {
    admin: readonly (string | undefined)[];
    read?: readonly (string | undefined)[];
    tick?: readonly (string | undefined)[];
    metrics?: readonly (string | undefined)[];
  },
  who = "createApp",
  settings: SecretSettings = APP_SECRET_SETTINGS,
): void {
  checkSecrets(s.admin, who, settings.admin);
  checkSecrets(s.read ?? [], who, settings.read);
  checkSecrets(s.tick ?? [], who, settings.tick);
  checkSecrets(s.metrics ?? [], who, settings.metrics);
}

const refuse = (c: Context, status: 401 | 403 | 429, error: string, code: string) => c.json({ error, code }, status);

/** The kind of secret `token` is, comparing in constant time against every accepted one. */
async function roleOf(secrets: Secrets, token: string): Promise<Role | undefined> {
  let found: Role | undefined;
  // Every secret is compared, so the time taken says nothing about which kind matched.
  for (const [role, list] of [
    ["admin", secrets.admin],
    ["read", secrets.read],
    ["tick", secrets.tick],
    ["metrics", secrets.metrics],
  ] as const) {
    for (const secret of list) if ((await timingSafeEqual(secret, token)) && !found) found = role;
  }
  return found;
}

/** Whether `role` may call `method path` (path relative to the app's basePath). */
export function allows(role: Role, method: string, path: string): boolean {
  if (role === "admin") return true;
  // GET /tick is Vercel Cron's way to start a tick: a change, so not a read.
  if (role === "read") return (method === "GET" || method === "HEAD") && path !== "/tick";
  if (role === "metrics") return (method === "GET" || method === "HEAD") && path === "/metrics";
  return path === "/tick" && (method === "POST" || method === "GET");
}

export interface AuthOptions {
  secrets: Secrets;
  /** Where the app is mounted: routes are matched below it. */
  basePath?: string;
  /** Slows down a client's repeated failures; default none. */
  throttle?: Throttle;
}

/**
 * Who the caller is, or undefined: a bearer secret, or on POST /tick a
 * fan-out credential for the tick id it carries. Does not throttle.
 */
export async function callerRole(c: Context, secrets: Secrets, basePath = ""): Promise<Role | undefined> {
  const header = c.req.header("authorization");
  const match = header ? /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(header) : null;
  if (match) return roleOf(secrets, match[1]!);
  const credential = c.req.header(TICK_AUTH_HEADER);
  const tickId = c.req.header(TICK_ID_HEADER);
  if (!header && credential && tickId && c.req.method === "POST" && c.req.path === `${basePath}/tick`) {
    const signers = [...secrets.admin, ...secrets.tick];
    if (await verifyTick(signers, tickId, credential)) return "tick";
  }
  return undefined;
}

/** The 429 for a client the throttle refuses now, or undefined when it may try. */
export async function throttled(c: Context, throttle: Throttle, client: string): Promise<Response | undefined> {
  const wait = await throttle.blockedFor(client);
  if (wait <= 0) return undefined;
  c.header("retry-after", String(Math.ceil(wait / 1000)));
  return refuse(c, 429, "too many failed attempts from this client: try again later", "THROTTLED");
}

/**
 * The path of the route that will answer (relative to basePath), else the
 * request's: the router answers GET /tick/ with the /tick route, so a
 * request's spelling of its path must not decide what a secret may do.
 */
function routeOf(c: Context, basePath: string): string {
  const route = matchedRoutes(c).find((r) => r.method !== "ALL");
  return (route?.path ?? c.req.path).slice(basePath.length) || "/";
}

// Why a secret of each limited kind is refused a route, and the code.
const REFUSALS: Record<Exclude<Role, "admin">, [string, string]> = {
  read: ["this secret can only read (TICKQ_READ_SECRET): use TICKQ_SECRET to change anything", "READ_ONLY"],
  tick: ["this secret can only start ticks (CRON_SECRET): POST or GET /tick", "TICK_ONLY"],
  metrics: ["this secret can only scrape GET /metrics (TICKQ_METRICS_SECRET)", "METRICS_ONLY"],
};

export function requireAccess(options: AuthOptions): MiddlewareHandler {
  const { secrets, basePath = "", throttle } = options;
  if (secrets.admin.length + secrets.read.length + secrets.tick.length + secrets.metrics.length === 0)
    throw new Error("requireAccess needs at least one non-empty secret");
  return async (c, next) => {
    const client = throttle?.clientOf(c);
    if (throttle && client !== undefined) {
      const refused = await throttled(c, throttle, client);
      if (refused) return refused;
    }
    const header = c.req.header("authorization");
    const role = await callerRole(c, secrets, basePath);
    if (!role) {
      if (throttle && client !== undefined) await throttle.failed(client);
      if (!header && !c.req.header(TICK_AUTH_HEADER))
        return refuse(c, 401, "missing Authorization: Bearer <secret> header", "UNAUTHORIZED");
      if (header && !/^Bearer +[A-Za-z0-9._~+/-]+=* *$/i.test(header))
        return refuse(c, 401, "Authorization header must be: Bearer <secret>", "UNAUTHORIZED");
      return refuse(
        c,
        401,
        header ? "wrong secret" : "fan-out credential refused (expired, or for another tick)",
        "UNAUTHORIZED",
      );
    }
    if (!allows(role, c.req.method, routeOf(c, basePath))) {
      const [error, code] = REFUSALS[role as Exclude<Role, "admin">]; // allows() let every admin through
      return refuse(c, 403, error, code);
    }
    c.set("role", role);
    await next();
  };
}
