// Slots freed in one burst (prefetch.ts): counted, then folded into the
// rate once, at the burst's end (the pipeline's refill), with one clock read,
// where each free read the clock. They weigh as much as frees folded one by
// one at the same moment, and a fold dates them, so a hand-back still waits
// a hold time from the burst. The clock is the test's: no timing.
import { describe, expect, it } from "vitest";
import { HOLD_MS, newPrefetch } from "../../src/tick/prefetch.js";

/** A prefetch on the test's clock, counting its reads. */
function onClock() {
  const clock = { t: 0, reads: 0 };
  const prefetch = newPrefetch(50, () => {
    clock.reads++;
    return clock.t;
  });
  return { clock, prefetch };
}

describe("slots freed in a burst", () => {
  it("weigh in the room to fetch as many frees folded one by one at the same moment", () => {
    const burst = onClock();
    const apart = onClock();
    for (const { clock, prefetch } of [burst, apart]) {
      for (; clock.t < 100; clock.t++) prefetch.started();
    }
    for (let k = 0; k < 40; k++) burst.prefetch.freed();
    burst.prefetch.flush();
    for (let k = 0; k < 40; k++) {
      apart.prefetch.freed();
      apart.prefetch.flush();
    }
    expect(burst.prefetch.room(10, 5)).toBe(apart.prefetch.room(10, 5));
    expect(burst.prefetch.room(10, 5)).toBeGreaterThan(50 - 10 - 5);
  });

  it("read the clock once for the whole burst", () => {
    const { clock, prefetch } = onClock();
    prefetch.started();
    const before = clock.reads;
    for (let k = 0; k < 100; k++) prefetch.freed();
    expect(clock.reads).toBe(before);
    prefetch.flush();
    expect(clock.reads).toBe(before + 1);
    prefetch.flush();
    expect(clock.reads).toBe(before + 1);
  });

  it("are dated at their fold: held jobs are overdue a hold time after it, not before", () => {
    const { clock, prefetch } = onClock();
    prefetch.started();
    clock.t = 10;
    prefetch.freed();
    prefetch.flush();
    clock.t = 10 + HOLD_MS - 1;
    expect(prefetch.overdue(0)).toBe(false);
    clock.t = 10 + HOLD_MS;
    expect(prefetch.overdue(0)).toBe(true);
  });

  it("not yet folded are folded by the next read of the room", () => {
    const folded = onClock();
    const unfolded = onClock();
    for (const { prefetch } of [folded, unfolded]) {
      prefetch.started();
      for (let k = 0; k < 30; k++) prefetch.freed();
    }
    folded.prefetch.flush();
    expect(unfolded.prefetch.room(0, 0)).toBe(folded.prefetch.room(0, 0));
  });
});
