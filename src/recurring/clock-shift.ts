// The schedule clock's shift of each Tickq, for tickq's own tests and
// benchmark only: they move it (RecurringSet.shiftMs) to live through an
// hour, a DST change or a long outage in a second. Not exported from the
// package. It holds the one number they move, not the runtime: what the
// HTTP app, the dashboard and partitions need of a Tickq is on its interface.

/** The part of a RecurringSet a test moves. */
export interface ShiftableClock {
  shiftMs: number;
}

const clocks = new WeakMap<object, readonly ShiftableClock[]>();

/** Records the schedule clocks behind `tickq` (one per partition): core.ts and partitions/ call it as they build one. */
export function recordRecurringClocks(tickq: object, of: readonly ShiftableClock[]): void {
  clocks.set(tickq, of);
}

/** Moves the schedule clock of `tickq` to read `at` now (Redis' time + shift), or by `byMs`. */
export function shiftRecurringClock(
  tickq: object,
  shift: { byMs: number } | { toMs: number; redisNowMs: number },
): void {
  const of = clocks.get(tickq);
  if (!of) throw new Error("not a Tickq made by createTickq (or one whose partition count is not yet found)");
  for (const clock of of) {
    if ("byMs" in shift) clock.shiftMs += shift.byMs;
    else clock.shiftMs = shift.toMs - shift.redisNowMs;
  }
}
