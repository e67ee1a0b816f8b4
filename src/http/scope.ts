// Per request: the app's tq scoped to where background work may run (the
// Worker's ctx.waitUntil, Vercel's waitUntil, or in-process on Node), with
// fan-out through the app's own configured URL (fanout.ts). User routes read it as `c.var.tq`;
// POST /jobs and /tick use it too, so a kick or a fan-out started by a
// request is kept alive by that request's invocation.
import type { Context, MiddlewareHandler } from "hono";
import type { JobRegistry, Tickq, TickOptions, WaitUntil } from "../index.js";
import { TICK_ID_HEADER } from "./fanout.js";
import type { Role } from "./auth.js";
import { printable } from "../printable.js";

/** The Hono environment of the app: `c.var.tq`. */
export interface TickqEnv<J extends JobRegistry = JobRegistry> {
  /** What the app sets on each request (`c.var`). */
  Variables: {
    /** The app's tickq, kicking in this request's background. */
    tq: Tickq<J>;
    /** What the caller's credential allows; unset before auth (your own routes, /health). */
    role?: Role;
  };
}

export interface ScopeOptions {
  tickq: Tickq<JobRegistry>;
  kick?: boolean;
  maxParallel?: number;
  /** Starts more ticks (fanOutStarter); undefined when fan-out is off. */
  fanOut?: () => Promise<void>;
  waitUntil?: WaitUntil;
  tick?: TickOptions;
}

/** The request's own waitUntil (Workers), else the app's (Vercel), else in-process. */
export function backgroundOf(c: Context, options: ScopeOptions): WaitUntil {
  let ctx: { waitUntil(promise: Promise<unknown>): void } | undefined;
  try {
    ctx = c.executionCtx;
  } catch {
    // Node and Vercel give no execution context
  }
  if (ctx) return (promise) => ctx.waitUntil(promise);
  return options.waitUntil ?? ((promise) => void promise);
}

export function scopeRequests(options: ScopeOptions): MiddlewareHandler<TickqEnv> {
  return async (c, next) => {
    c.set(
      "tq",
      options.tickq.scope({ waitUntil: backgroundOf(c, options), kick: options.kick ?? false, onMore: options.fanOut }),
    );
    await next();
  };
}

/**
 * POST|GET /tick: one tick, gated by maxParallel, under the tick id a
 * fan-out reserved for it (header). With `?wait=0` it answers 202 at once
 * and ticks in the background. A tick fans out as soon as its first batch
 * comes back full (a backlog), and again when it ends with work left (to
 * replace itself).
 */
export function tickRoute(options: ScopeOptions) {
  return async (c: Context<TickqEnv>) => {
    const background = backgroundOf(c, options);
    const more = options.fanOut;
    const tickId = c.req.header(TICK_ID_HEADER);
    const spread = () =>
      more &&
      background(
        more().catch((e: unknown) => console.warn(`tickq: fan-out failed: ${printable((e as Error).message)}`)),
      );
    const tick: TickOptions = {
      ...options.tick,
      ...(options.maxParallel === undefined ? {} : { maxParallel: options.maxParallel, onBacklog: spread }),
      ...(tickId ? { tickId } : {}),
    };
    const run = c.var.tq.tick(tick).then((report) => {
      if (report.more) spread();
      return report;
    });
    if (c.req.query("wait") === "0") {
      background(
        run.catch((e: unknown) => console.warn(`tickq: background tick failed: ${printable((e as Error).message)}`)),
      );
      return c.json({ started: true }, 202);
    }
    return c.json(await run);
  };
}
