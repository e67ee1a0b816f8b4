// How many fetched jobs a tick holds before it has slots for them. Jobs held
// ahead cover the next fetch's round trip, so slots never idle waiting for
// Redis; held longer, they wait behind busy slots while another tick could
// run them. So a tick fetches no more than its slots are expected to start
// within the hold time (HOLD_MS, or two round trips when Redis is far), and
// hands back what it holds once the oldest has waited that long while no
// slot freed (pipeline.ts). The expectation is the rate at which slots
// freed lately, so a tick of slow jobs fetches little more than its free
// slots, and a tick of fast ones a whole batch.

import { monotonicMs } from "./clock.js";

/** How long a fetched job may wait for a slot before another tick should have it. */
export const HOLD_MS = 250;

/** Slots freed this long ago weigh 1/e of one freed now. */
const RATE_WINDOW_MS = 1_000;

/**
 * What the slowest round trip lately keeps of its weight each step after it: a late one counts for
 * a dozen steps. Over HTTP one request in a few dozen takes three or four times the others on a
 * loaded host, and one such fetch, covered for the mean round trip, left every slot idle until it
 * came back (bench/upstash-occupancy.ts).
 */
const LATE_DECAY = 0.9;

export interface Prefetch {
  started(): void;
  /** A slot freed: counted, and folded into the rate at the next read or flush(). */
  freed(): void;
  /**
   * Folds the slots freed since into the rate, as freed now. Jobs that settle together (a fill of
   * no-op jobs) are folded once, after their burst: one clock read and one exp(), where each free
   * cost both (bench/client-instructions.ts counts the difference).
   */
  flush(): void;
  stepTook(ms: number): void;
  /** A step's round trip, smoothed (0 before the first). */
  stepMs(): number;
  /**
   * How many jobs start during one step round trip, with a margin: the lead a fetch needs. `late`:
   * during the slowest round trip lately (decaying), where round trips vary (HTTP), not the mean.
   */
  lead(late?: boolean): number;
  /** How long a job may wait for a slot here. */
  holdMs(): number;
  /** How many more jobs to fetch: what free slots and the slots expected to free within holdMs() can start. */
  room(running: number, held: number): number;
  /** Whether the held jobs should go back: the oldest (held since `oldestHeldAt`, on now()'s clock) waited holdMs() and no slot freed meanwhile. */
  overdue(oldestHeldAt: number): boolean;
  /** The clock these times are read on. */
  now(): number;
}

/** Times are monotonic milliseconds (performance.now()): jobs that all finish within one millisecond still show a rate. */
export function newPrefetch(concurrency: number, now: () => number = monotonicMs): Prefetch {
  return new RatePrefetch(concurrency, now);
}

// A class, not an object of closures made each call: the pipeline calls started() and freed() once a
// job, and a tick's new closures threw away the optimized code that had inlined the last tick's ("wrong
// call target", bench/drain-warmup.ts). The prototype's methods are the same for every tick.
class RatePrefetch implements Prefetch {
  private stepAvgMs = 0;
  // The slowest step lately: each step's round trip, or LATE_DECAY of the last figure if more.
  private lateMs = 0;
  private first = 0;
  private starts = 0;
  // Slots freed, each weighted by exp(-age / RATE_WINDOW_MS), as of lastFreed.
  private weight = 0;
  private lastFreed = 0;
  // Slots freed since the last fold: they weigh as freed at the fold, within the burst they freed in.
  private pending = 0;

  constructor(
    private readonly concurrency: number,
    readonly now: () => number,
  ) {}

  started(): void {
    if (this.starts++ === 0) this.first = this.now();
  }

  freed(): void {
    this.pending++;
  }

  flush(): void {
    if (this.pending === 0) return;
    const at = this.now();
    this.weight = this.weight * Math.exp(-(at - this.lastFreed) / RATE_WINDOW_MS) + this.pending;
    this.lastFreed = at;
    this.pending = 0;
  }

  stepTook(ms: number): void {
    this.stepAvgMs = this.stepAvgMs === 0 ? ms : 0.7 * this.stepAvgMs + 0.3 * ms;
    this.lateMs = Math.max(ms, this.lateMs * LATE_DECAY);
  }

  stepMs(): number {
    return this.stepAvgMs;
  }

  lead(late = false): number {
    const elapsed = this.now() - this.first;
    if (this.starts < 2 || elapsed <= 0) return 0;
    return Math.ceil(1.5 * (late ? Math.max(this.stepAvgMs, this.lateMs) : this.stepAvgMs) * (this.starts / elapsed));
  }

  holdMs(): number {
    return Math.max(HOLD_MS, 2 * this.stepAvgMs);
  }

  room(running: number, held: number): number {
    this.flush();
    return this.concurrency - running + Math.floor(this.freeRate(this.now()) * this.holdMs()) - held;
  }

  overdue(oldestHeldAt: number): boolean {
    this.flush();
    const at = this.now();
    const hold = this.holdMs();
    return at - oldestHeldAt >= hold && at - Math.max(this.lastFreed, oldestHeldAt) >= hold;
  }

  private freeRate(at: number): number {
    if (this.weight === 0) return 0;
    const elapsed = Math.max(at - this.first, 0.001);
    // For a steady rate r, the weight is r · W · (1 − e^(−elapsed/W)).
    return (
      (this.weight * Math.exp(-(at - this.lastFreed) / RATE_WINDOW_MS)) /
      (RATE_WINDOW_MS * (1 - Math.exp(-elapsed / RATE_WINDOW_MS)))
    );
  }
}
