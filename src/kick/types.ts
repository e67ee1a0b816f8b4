// The public shape of kicks (a tick started right after an enqueue) and of
// the scope that says where a kicked tick may run.
import type { TickOptions } from "../tick/options.js";

/** Keeps an invocation alive until the promise settles: Cloudflare's ctx.waitUntil, Vercel's waitUntil. */
export type WaitUntil = (promise: Promise<unknown>) => void;

/** How kicked ticks run (createTickq({ kick })). */
export interface KickOptions {
  /** Kicked ticks running at once per prefix (all instances together); default 2. More kicks wait for those. */
  max?: number;
  /** Wall time one kick may spend ticking while work remains; default 10,000 ms. */
  budgetMs?: number;
  /** Options of each kicked tick; its budgetMs is capped by what is left of the kick's. */
  tick?: TickOptions;
}

/** Where this view's kicked ticks run (tq.scope()); the entries make one per request. */
export interface KickScope {
  /** Runs each kicked tick inside it; default: in-process (Node: the promise just runs). */
  waitUntil?: WaitUntil;
  /** Enqueues kick unless they say `kick: false` (the app's `kick` option); default false. */
  kick?: boolean;
  /**
   * Called when a kicked tick ends with work left: start more ticks (the
   * app fans out through its own /tick URL). Without it the kick keeps
   * ticking until its budget runs out.
   */
  onMore?: () => Promise<void>;
}
