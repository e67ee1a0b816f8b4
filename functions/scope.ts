// Per request: the app's tq scoped to where background work may run (the
// Worker's ctx.waitUntil, Vercel's waitUntil, or in-process on Node), with
// fan-out through the app's own URL. User routes read it as `c.var.tq`;
// POST /jobs and /tick use it too, so a kick or a fan-out started by a
// request is kept alive by that request's invocation.
import type { Context, MiddlewareHandler } from "hono";
import type { JobRegistry, Tickq, TickOptions, WaitUntil } from "../src/index.js";
import { fanOut, TICK_ID_HEADER, type SelfFetch } from "./fanout.js";

/** The Hono environment of the app: `c.var.tq`. */
export interface TickqEnv<J extends JobRegistry = JobRegistry> {
  Variables: { tq: Tickq<J> };
}

export interface ScopeOptions {
  tickq: Tickq<JobRegistry>;
  secrets: (string | undefined)[];
  kick?: boolean;
  maxParallel?: number;
  publicUrl?: string;
  selfFetch?: SelfFetch;
  waitUntil?: WaitUntil;
  basePath?: string;
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

/** Starts more ticks through /tick when fan-out is on (maxParallel); undefined when it is off. */
function fanOutFrom(c: Context, options: ScopeOptions): (() => Promise<void>) | undefined {
  if (options.maxParallel === undefined) return undefined;
  const url = (options.publicUrl ?? new URL(c.req.url).origin + (options.basePath ?? "")).replace(/\/+$/, "");
  const secret = options.secrets.find((s): s is string => Boolean(s));
  return async () => {
    await fanOut(options.tickq, { maxParallel: options.maxParallel!, url, secret, fetch: options.selfFetch, log: console.warn });
  };
}

export function scopeRequests(options: ScopeOptions): MiddlewareHandler<TickqEnv> {
  return async (c, next) => {
    c.set("tq", options.tickq.scope({ waitUntil: backgroundOf(c, options), kick: options.kick ?? false, onMore: fanOutFrom(c, options) }));
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
    const more = fanOutFrom(c, options);
    const tickId = c.req.header(TICK_ID_HEADER);
    const spread = () => more && background(more().catch((e: unknown) => console.warn(`tickq: fan-out failed: ${(e as Error).message}`)));
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
      background(run.catch((e: unknown) => console.warn(`tickq: background tick failed: ${(e as Error).message}`)));
      return c.json({ started: true }, 202);
    }
    return c.json(await run);
  };
}
