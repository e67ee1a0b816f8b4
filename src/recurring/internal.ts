// The runtime behind each Tickq, for tickq's own tests and benchmark only:
// they move the schedule clock (RecurringSet.shiftMs) to live through an hour,
// a DST change or a long outage in a second. Not exported from the package.
import type { OrderedSlice } from "../ordered/runtime.js";
import type { ResultsSlice } from "../results/runtime.js";
import type { SidekiqSlice } from "../sidekiq/runtime.js";
import type { Runtime } from "../tick/runtime.js";
import type { WorkflowsSlice } from "../workflows/runtime.js";
import type { RecurringSlice } from "./runtime.js";

/** A Tickq's whole runtime: src/runtime.ts's TickqRuntime, spelled here because that file stands above this one. */
export type WholeRuntime = Runtime & OrderedSlice & WorkflowsSlice & RecurringSlice & SidekiqSlice & ResultsSlice;

export const runtimes = new WeakMap<object, WholeRuntime>();

/** A partitioned Tickq's cores (src/partitions/facade.ts): shifting its clock shifts each of theirs. */
export const partitionCores = new WeakMap<object, readonly object[]>();

/** Moves the schedule clock of `tickq` to read `at` now (Redis' time + shift), or by `byMs`. */
export function shiftRecurringClock(
  tickq: object,
  shift: { byMs: number } | { toMs: number; redisNowMs: number },
): void {
  const cores = partitionCores.get(tickq);
  if (cores) {
    for (const core of cores) shiftRecurringClock(core, shift);
    return;
  }
  const runtime = runtimes.get(tickq);
  if (!runtime) throw new Error("not a Tickq made by createTickq");
  if ("byMs" in shift) runtime.recurring.shiftMs += shift.byMs;
  else runtime.recurring.shiftMs = shift.toMs - shift.redisNowMs;
}

/**
 * The runtime of a Tickq that builds its cores at its first call (`partitions: "auto"`,
 * src/partitions/auto.ts): dashboard sessions and the login throttle wait for it.
 */
export const pendingRuntimes = new WeakMap<object, () => Promise<WholeRuntime>>();

/** The runtime behind a Tickq, waiting for one built at its first call; undefined for an object createTickq did not make. */
export async function runtimeFor(tickq: object): Promise<WholeRuntime | undefined> {
  return runtimes.get(tickq) ?? (await pendingRuntimes.get(tickq)?.());
}
