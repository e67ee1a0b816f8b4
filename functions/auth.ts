// Bearer auth for every route but /health: Hono's bearerAuth compares in
// constant time against each accepted secret (TICKQ_SECRET, and Vercel's
// CRON_SECRET). Every refusal is a 401 with a JSON error.
import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";

const refuse = (error: string) => (c: Context) => c.json({ error }, 401);

export function requireSecret(secrets: string[]): MiddlewareHandler {
  const accepted = secrets.filter((s) => s.length > 0);
  if (accepted.length === 0) throw new Error("requireSecret needs at least one non-empty secret");
  return bearerAuth({
    token: accepted,
    noAuthenticationHeader: { message: refuse("missing Authorization: Bearer <secret> header") },
    invalidAuthenticationHeader: { message: refuse("Authorization header must be: Bearer <secret>") },
    invalidToken: { message: refuse("wrong secret") },
  });
}
