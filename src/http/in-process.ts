// What a long-lived server (Node, Bun, Deno) runs beside its requests: kicked ticks and fan-out as
// background promises that stop() waits for, and a tick every interval, skipped while the previous
// one still runs, so a slow tick never stacks another on top of it.
import type { JobRegistry, Tickq, TickOptions, TickReport, WaitUntil } from "../index.js";
import { buildEdge, credentialsOf, kicksByDefault, type Edge, type EdgeOptions } from "./edge.js";
import { maskedError } from "./errors.js";
import { restFromEnv } from "./rest-from-env.js";
import type { ClientOf } from "./throttle.js";
import { printable } from "../printable.js";

/** Background work of one process: `waitUntil` runs a promise in-process; `settled()` waits for all of them. */
export function backgroundWork(): { waitUntil: WaitUntil; settled(): Promise<void> } {
  const pending = new Set<Promise<unknown>>();
  return {
    waitUntil: (promise) => {
      pending.add(promise);
      void promise.finally(() => pending.delete(promise));
    },
    settled: async () => {
      await Promise.allSettled([...pending]);
    },
  };
}

export interface TickLoopOptions {
  /** Milliseconds between ticks. */
  everyMs: number;
  /** Options of every tick. */
  tick: TickOptions;
  /** Called with each tick's report. */
  onTick?: (report: TickReport) => void;
  /** Hands a backlog to fan-out when a tick ends with work left. */
  onMore?: () => Promise<void>;
  /** An error the host has logged already (the Node server's Redis watch): not logged again. */
  logged?: (error: unknown) => boolean;
}

/** Ticks every `everyMs` until `stop()`, which waits for the tick that runs. */
export function startTickLoop(tickq: Tickq<JobRegistry>, options: TickLoopOptions): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    running ??= tickq
      .tick(options.tick)
      .then(async (report) => {
        options.onTick?.(report);
        if (report.more && options.onMore) await options.onMore();
      })
      .catch((error: unknown) => {
        if (!options.logged?.(error)) console.error(`tickq: tick failed: ${printable((error as Error).message)}`);
      })
      .finally(() => {
        running = null;
      });
  }, options.everyMs);
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}

/** A long-lived process's tickq: its edge, its tickq kicking in-process, and a stop that waits for both. */
export interface InProcessEdge<J extends JobRegistry> {
  edge: Edge<J>;
  /** The tickq, kicking in-process and handing a backlog to fan-out. */
  tickq: Tickq<J>;
  /** Ticks every `everyMs` until stop() (0: no loop). */
  loop(everyMs: number, onTick?: (report: TickReport) => void): void;
  /** Stops the loop, then waits for the running tick and every kicked tick. */
  stop(): Promise<void>;
}

/**
 * Builds the edge of a long-lived server (Bun, Deno, a Node framework) with Upstash's REST API from `env`
 * as its default Redis, throwing what stops it with credentials masked (the caller prints it, once).
 */
export function inProcessEdge<J extends JobRegistry>(
  options: EdgeOptions<J>,
  env: Record<string, string | undefined>,
  clientOf: ClientOf,
): InProcessEdge<J> {
  const background = backgroundWork();
  let edge: Edge<J>;
  try {
    edge = buildEdge(options, env, () => restFromEnv(env), { waitUntil: background.waitUntil, clientOf });
  } catch (error) {
    // Thrown to the code that starts the server, which prints it or handles it: logged here too, it printed twice.
    throw maskedError(error, credentialsOf(env));
  }
  let loop: { stop(): Promise<void> } | undefined;
  return {
    edge,
    tickq: edge.tickq.scope({
      waitUntil: background.waitUntil,
      kick: kicksByDefault(edge.settings, options.kick),
      onMore: edge.fanOut,
    }),
    loop: (everyMs, onTick) => {
      if (everyMs > 0)
        loop = startTickLoop(edge.tickq as Tickq<JobRegistry>, {
          everyMs,
          tick: edge.tick,
          onTick,
          onMore: edge.fanOut,
        });
    },
    stop: async () => {
      await loop?.stop();
      await background.settled();
    },
  };
}
