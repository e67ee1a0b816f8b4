// GET /health, before auth: open to load balancers and uptime checks, so it
// says little and costs little. Anyone gets 200 {ok: true} when Redis
// answers, 503 {ok: false, code: "UNAVAILABLE"} when it does not; a caller
// with a secret (any kind) also gets the heartbeat's warnings (no tick
// lately while jobs wait, a queue no tick serves, the eviction policy) or
// the reason Redis did not answer. With `?strict=1` warnings fail the check
// too (503, code WARNINGS), for a probe that should page on them; without
// it a warning never turns a probe red. Anonymous answers are cached a few
// seconds per instance: a flood of checks costs one stats call per
// interval. A caller with a secret gets a fresh reading. As the detail
// tells a right secret from a wrong one, a wrong one counts toward the
// client's auth throttle, and a throttled client sending one gets 429.
import { Hono } from "hono/tiny";
import { TickqError } from "../../errors.js";
import type { JobRegistry, Tickq } from "../../index.js";
import { redact } from "../../redact.js";
import { callerRole, throttled, type Secrets } from "../auth.js";
import type { Throttle } from "../throttle.js";
import { logError } from "../errors.js";

/** How long one answer of /health is reused. */
export const HEALTH_CACHE_MS = 3_000;

type Health = { ok: true; lastTickAt: number | null; warnings: string[] } | { ok: false; error: string; code: string };

export interface HealthOptions {
  basePath?: string;
  throttle?: Throttle;
  /** An error the host has logged already (the Node server's Redis watch): not logged again. */
  logged?: (error: unknown) => boolean;
}

export function healthRoutes(tickq: Tickq<JobRegistry>, secrets: Secrets, options: HealthOptions = {}): Hono {
  const { basePath = "", throttle, logged } = options;
  const app = new Hono();
  const all = [...secrets.admin, ...secrets.read, ...secrets.tick, ...secrets.metrics];
  let cached: { at: number; health: Promise<Health> } | undefined;
  const outage = outageLog(all);
  const check = async (): Promise<Health> => {
    try {
      const stats = await tickq.stats();
      outage.ended();
      return { ok: true, lastTickAt: stats.lastTickAt ?? null, warnings: stats.warnings };
    } catch (error) {
      if (!logged?.(error)) outage.failed(error);
      // A TickqError's message says what failed; anything else stays private.
      const reason = error instanceof TickqError ? redact(error.message, all) : "internal error";
      return { ok: false, error: reason, code: error instanceof TickqError ? error.code : "INTERNAL" };
    }
  };
  app.get("/health", async (c) => {
    const strict = strictness(c.req.query("strict"));
    if (strict === undefined)
      return c.json(
        { ok: false, code: "BAD_ARGS", error: "strict must be 1 or true (warnings answer 503), 0 or false" },
        400,
      );
    const open = all.length === 0;
    // Only a caller sending a credential is throttled: an uptime check sends none.
    const client = !open && c.req.header("authorization") !== undefined ? throttle?.clientOf(c) : undefined;
    if (throttle && client !== undefined) {
      const refused = await throttled(c, throttle, client);
      if (refused) return refused;
    }
    const detailed = open || (await callerRole(c, secrets, basePath)) !== undefined;
    if (!detailed && throttle && client !== undefined) await throttle.failed(client);
    const now = Date.now();
    if (detailed) cached = { at: now, health: check() };
    else if (!cached || now - cached.at >= HEALTH_CACHE_MS) cached = { at: now, health: check() };
    const health = await cached.health;
    if (health.ok && health.warnings.length > 0 && strict) {
      return c.json(detailed ? { ...health, ok: false, code: "WARNINGS" } : { ok: false, code: "WARNINGS" }, 503);
    }
    if (health.ok) return c.json(detailed ? health : { ok: true });
    return c.json(detailed ? { ...health, warnings: [] } : { ok: false, code: "UNAVAILABLE" }, 503);
  });
  return app;
}

/** Within one outage, one line a minute past the first (which has the whole error): `OUTAGE_NOTE_MS`. */
export const OUTAGE_NOTE_MS = 60_000;

/**
 * Logs an outage once, not once a check: the first failed check with its error, then at most one short
 * line a minute while it lasts (how many checks failed), and one when a check passes again.
 */
function outageLog(secrets: readonly string[]) {
  let since: number | undefined;
  let notedAt = 0;
  let failures = 0;
  return {
    failed(error: unknown) {
      const now = Date.now();
      failures++;
      if (since === undefined) {
        since = notedAt = now;
        logError("health check failed (logged once per outage)", error, secrets);
      } else if (now - notedAt >= OUTAGE_NOTE_MS) {
        notedAt = now;
        const code = error instanceof TickqError ? error.code : "INTERNAL";
        console.error(
          `tickq: health check still failing (${code}): ${failures} check(s) since ${new Date(since).toISOString()}`,
        );
      }
    },
    ended() {
      if (since === undefined) return;
      console.error(
        `tickq: health check passes again after ${failures} failed check(s) since ${new Date(since).toISOString()}`,
      );
      since = undefined;
      failures = 0;
    },
  };
}

/** `?strict=1` (or true, or a bare `?strict`) asks warnings to fail the check; undefined for a value it does not know. */
function strictness(value: string | undefined): boolean | undefined {
  if (value === undefined) return false;
  const v = value.toLowerCase();
  if (v === "" || v === "1" || v === "true") return true;
  if (v === "0" || v === "false") return false;
  return undefined;
}
