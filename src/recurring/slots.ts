// Which slots of a due schedule to enqueue now, by its `missed` policy, and
// when it is due next. Pure: the tick computes, Redis claims (recurring.lua
// enqueues only slots after the last one claimed, and only if the due time
// it finds is the one begin saw).
import type { Declared } from "./declare.js";

export interface Plan {
  /** Slots to enqueue, oldest first. */
  slots: number[];
  /** The next slot after `now`; null when the schedule never runs again. */
  next: number | null;
}

/** Results shared by schedules with the same timing, within one tick. */
export type Memo = Map<string, unknown>;

function memoized<T>(memo: Memo, key: string, compute: () => T): T {
  if (memo.has(key)) return memo.get(key) as T;
  const value = compute();
  memo.set(key, value);
  return value;
}

/** The first slot after `now`. */
export function nextSlot(d: Declared, now: number, memo: Memo): number | null {
  return memoized(memo, `${d.timingFp} after ${now}`, () => d.timing.after(now));
}

/**
 * `due`: the slot Redis holds as next; `last`: the last slot claimed (none:
 * null); `now`: Redis' time (schedule clock). A slot is missed once a later
 * one is due too: "latest" runs the most recent due slot, "all" every due
 * slot (the most recent `maxMissed`), "none" a slot only if it is the one
 * slot due.
 */
export function planSlots(d: Declared, due: number, last: number | null, now: number, memo: Memo): Plan {
  const from = last === null ? due : Math.max(due, last + 1);
  const n = d.missed === "all" ? d.maxMissed : d.missed === "none" ? 2 : 1;
  const candidates = memoized(memo, `${d.timingFp} ${n} ${from} ${now}`, () => d.timing.latest(n, from, now));
  const slots = d.missed === "none" && candidates.length > 1 ? [] : candidates;
  return { slots, next: nextSlot(d, now, memo) };
}
