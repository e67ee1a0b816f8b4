// A tick's options, checked and defaulted: nonsense (a negative batch, a
// lease of 0) is a TickqError naming the option, never a tick that quietly
// does nothing.
import { MAX_TIMER_MS, numberOption } from "../options.js";
import type { TickOptions } from "./options.js";

export interface TickSettings {
  budgetMs: number;
  batch: number;
  concurrency: number;
  leaseMs: number;
  graceMs: number;
  resurrectLimit: number;
  scheduleLimit: number;
  cancelCheckMs: number;
}

export function tickSettings(options: TickOptions): TickSettings {
  // A batch is one LPUSH of unpacked jobs in Lua (its C stack holds ~8,000).
  const batch = numberOption(options.batch, 50, "batch", { min: 1, integer: true });
  return {
    budgetMs: numberOption(options.budgetMs, 10_000, "budgetMs", { min: 0, max: MAX_TIMER_MS }),
    batch: Math.min(1_000, batch),
    concurrency: concurrencyOf(options),
    leaseMs: numberOption(options.leaseMs, 30_000, "leaseMs", { min: 100, max: MAX_TIMER_MS, integer: true }),
    graceMs: numberOption(options.graceMs, 1_000, "graceMs", { min: 0, max: MAX_TIMER_MS }),
    resurrectLimit: numberOption(options.resurrectLimit, 1_000, "resurrectLimit", { min: 0, integer: true }),
    scheduleLimit: numberOption(options.scheduleLimit, 1_000, "scheduleLimit", { min: 0, integer: true }),
    cancelCheckMs: numberOption(options.cancelCheckMs, 750, "cancelCheckMs", { min: 10, max: MAX_TIMER_MS }),
  };
}

/** Handlers a tick runs at once (a tick over partitions: all of them together); default 10. */
export function concurrencyOf(options: TickOptions): number {
  return numberOption(options.concurrency, 10, "concurrency", { min: 1, integer: true });
}
