// Bearer auth for every route but /health: Hono's bearerAuth compares in
// constant time against each accepted secret (TICKQ_SECRET, and Vercel's
// CRON_SECRET). Every refusal is a 401 with a JSON error.
//
// bearerAuth refuses, before any comparison, a token outside RFC 6750's
// alphabet (`[A-Za-z0-9._~+/-]+=*`): a secret like `pa$$word!`, `a:b` or
// `tok=en` could never authenticate, so createApp refuses it at start.
import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { TickqError } from "../src/errors.js";

const refuse = (error: string) => (c: Context) => c.json({ error }, 401);

/** Every token Hono's bearerAuth can match; it answers any other one as malformed. */
export const BEARER_TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;

/**
 * Throws TickqError BAD_OPTIONS for a secret no request could ever match.
 * The message names the secret by its position (never its value: the Worker
 * and Vercel handlers answer it to whoever calls them).
 */
export function checkSecrets(secrets: readonly (string | undefined)[], who = "createApp"): void {
  secrets.forEach((secret, i) => {
    if (!secret || BEARER_TOKEN.test(secret)) return;
    const why = BEARER_TOKEN.test(secret.trim())
      ? "it has whitespace at its start or end (a newline from `echo`?)"
      : /^[A-Za-z0-9._~+/=-]+$/.test(secret)
        ? `it has "=" before its end ("=" may only be trailing padding)`
        : "it has a character outside that set";
    throw new TickqError(
      "BAD_OPTIONS",
      `${who}: secret ${i + 1} of ${secrets.length} (the Worker and Vercel handlers pass [TICKQ_SECRET, CRON_SECRET]) can never authenticate: ` +
        `a bearer secret may only hold the characters A-Z a-z 0-9 - . _ ~ + / followed by optional "=" padding, and ${why}. ` +
        "Choose a new one, e.g. the output of `openssl rand -hex 32`.",
    );
  });
}

export function requireSecret(secrets: string[]): MiddlewareHandler {
  const accepted = secrets.filter((s) => s.length > 0);
  if (accepted.length === 0) throw new Error("requireSecret needs at least one non-empty secret");
  checkSecrets(accepted, "requireSecret");
  return bearerAuth({
    token: accepted,
    noAuthenticationHeader: { message: refuse("missing Authorization: Bearer <secret> header") },
    invalidAuthenticationHeader: { message: refuse("Authorization header must be: Bearer <secret>") },
    invalidToken: { message: refuse("wrong secret") },
  });
}
