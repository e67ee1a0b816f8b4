// Ticks back to back while work remains and the budget allows: a cron fires
// once a minute, so one trigger should drain a backlog, not one batch.
import { monotonicMs } from "../tick/clock.js";
import type { JobRegistry, Tickq, TickOptions, TickReport } from "../index.js";

/** Below this much budget left, another tick would be mostly overhead. */
const MIN_TICK_MS = 500;

/**
 * `onMore`: hands a backlog to fan-out at the first tick with work left
 * (fresh invocations, each with its own budget) instead of ticking on here.
 */
export async function tickUntilDone(
  tickq: Tickq<JobRegistry>,
  totalBudgetMs: number,
  options: TickOptions = {},
  onMore?: () => Promise<unknown>,
): Promise<TickReport[]> {
  const deadline = monotonicMs() + totalBudgetMs;
  const reports: TickReport[] = [];
  for (;;) {
    const left = deadline - monotonicMs();
    if (left < MIN_TICK_MS) break;
    const report = await tickq.tick({ ...options, budgetMs: Math.min(options.budgetMs ?? left, left) });
    reports.push(report);
    if (!report.more) break;
    if (onMore) {
      await onMore();
      break;
    }
  }
  return reports;
}

/** The options of one tick, from a Worker's or Vercel's string settings. */
export function tickSettings(env: { TICKQ_TICK_BUDGET_MS?: string; TICKQ_BATCH?: string }): TickOptions {
  return {
    budgetMs: numberSetting(env.TICKQ_TICK_BUDGET_MS, 10_000, "TICKQ_TICK_BUDGET_MS"),
    batch: numberSetting(env.TICKQ_BATCH, 50, "TICKQ_BATCH"),
  };
}

/** Reads a positive number setting from a string env var. */
export function numberSetting(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${value}"`);
  return n;
}
