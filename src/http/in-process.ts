// What a long-lived server (Node, Bun, Deno) runs beside its requests: kicked ticks and fan-out as
// background promises that stop() waits for, and a tick every interval, skipped while the previous
// one still runs, so a slow tick never stacks another on top of it.
import type { JobRegistry, Tickq, TickOptions, TickReport, WaitUntil } from "../index.js";
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
