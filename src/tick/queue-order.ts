// Queue order for fetch. Strict: the list as given. Weighted (Sidekiq's
// weighted fetch): every fetch slot draws its first queue with probability
// proportional to its weight; an empty draw falls back to the strict order.
import { TickqError } from "../errors.js";
import { isPrintableName } from "../names.js";
import { terminalJson } from "../printable.js";

/** Strict order (`["critical", "default"]`) or Sidekiq weights (`[["critical", 3], ["default", 1]]`). */
export type QueueOrder = string[] | [string, number][];

export interface QueuePlan {
  names: string[];
  /** Cumulative weights, or null for strict order. */
  cumulative: number[] | null;
}

export function planQueues(order: QueueOrder): QueuePlan {
  if (!Array.isArray(order) || order.length === 0)
    throw new TickqError("BAD_OPTIONS", "queues must name at least one queue");
  for (const q of order) {
    const name = Array.isArray(q) ? q[0] : q;
    if (!isPrintableName(name))
      throw new TickqError(
        "BAD_OPTIONS",
        `queue names must be non-empty words without spaces or control characters, got ${terminalJson(name)}`,
      );
  }
  if (order.every((q) => typeof q === "string")) return { names: order as string[], cumulative: null };
  const weighted = order.map((q) => (typeof q === "string" ? ([q, 1] as [string, number]) : q));
  let total = 0;
  const cumulative = weighted.map(([name, weight]) => {
    if (!(weight > 0)) throw new TickqError("BAD_OPTIONS", `queue "${name}" needs a positive weight, got ${weight}`);
    return (total += weight);
  });
  return { names: weighted.map(([name]) => name), cumulative };
}

/**
 * A queue's place in strict order (0 first), for choosing between jobs fetched apart (the
 * partitions of one tick); undefined when the order is weighted or names one queue.
 */
export function strictRank(plan: QueuePlan): ((queue: string) => number) | undefined {
  if (plan.cumulative !== null || plan.names.length < 2) return undefined;
  const place = new Map(plan.names.map((name, i) => [name, i]));
  return (queue) => place.get(queue) ?? plan.names.length;
}

/** 1-based queue indexes for the fetch script, one per slot; none when strict. */
export function drawPicks(plan: QueuePlan, slots: number): number[] {
  const { cumulative } = plan;
  if (!cumulative) return [];
  const total = cumulative[cumulative.length - 1]!;
  const picks: number[] = [];
  for (let slot = 0; slot < slots; slot++) {
    const r = Math.random() * total;
    picks.push(cumulative.findIndex((c) => r < c) + 1);
  }
  return picks;
}

/** The fetch part of a tick call (lib/tick/fetch-jobs.lua). */
export function fetchArgs(plan: QueuePlan, batch: number): { batch: number; queues: string[]; picks: number[] } {
  return { batch, queues: plan.names, picks: drawPicks(plan, batch) };
}
