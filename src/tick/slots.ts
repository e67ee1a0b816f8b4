// The slots a tick's pipelines share. A tick over several partitions runs a
// pipeline per partition (src/partitions/tick.ts), but its `concurrency` is
// one number: a slot freed in any partition goes to the best held job of
// them all (the highest queue in strict order, then the first fetched), and
// a partition with no work leaves its slots to the others. While several
// have work, none fetches past its part of the pool, and a slot freed wakes
// the others: else the partition whose job just finished, first to fetch,
// would take every freed slot and a partition whose jobs went back to their
// queue (prefetch.ts) would wait until it ran dry. A tick over one Redis has
// one pipeline, and the slots are its own.
import type { TickOptions } from "./options.js";
import { newPrefetch, type Prefetch } from "./prefetch.js";

/** What a pipeline shows the slots it shares. */
export interface SlotHolder {
  /** Its handlers running, those its closed pipeline gave up on included: they hold slots until they settle. */
  readonly running: number;
  /** Its jobs fetched and not started, plus those its fetch in flight asks for. */
  readonly held: number;
  /** How many jobs it started so far. */
  readonly started: number;
  /** It may fetch more: its queues did not look empty, and it is not stopping. */
  readonly wants: boolean;
  /** Its last fetch was due and got less than a batch, for want of room: it waits for a slot freed elsewhere. */
  readonly short: boolean;
  /** Where its next held job stands in the queue order, lower first (0 without an order); Infinity when it holds none. */
  rank(): number;
  /** When its next held job was fetched (on performance.now()'s clock). */
  since(): number;
  /** Starts, or sets aside, its next held job: false when it cannot now (fenced, gated, a solo run). */
  startNext(): boolean;
  /** Its loop has work: a slot freed that it may fill. */
  wake(): void;
  /** Fetches now if it is due to (its held jobs ran low, or the pool has room): cheaper than a turn of its loop. */
  fetchIfDue(): void;
}

const NONE = 0;
const BLOCKED = 1;
const STARTED = 2;

export class SharedSlots {
  private readonly holders: SlotHolder[] = [];
  // The holders' sums, kept as they report each change: read on every job started and freed, they
  // cost one field read, not a walk over the holders.
  private runningSum = 0;
  private heldSum = 0;
  // What each holder (by its place in `holders`) did in the fill under way, as bits: BLOCKED (its
  // head could not start), STARTED (it started jobs: it fetches after), both when it started some
  // and then was blocked. Kept between fills, so a fill, run for every job freed, allocates nothing.
  private readonly marks: number[] = [];
  /**
   * One reading of the pool's rate and round trips for all its holders: a slot freed in any
   * partition is room for every one, and a job held waits only when no slot of the pool frees.
   */
  readonly prefetch: Prefetch;

  constructor(readonly total: number) {
    this.prefetch = newPrefetch(total);
  }

  join(holder: SlotHolder): void {
    this.holders.push(holder);
    this.marks.push(NONE);
  }

  leave(holder: SlotHolder): void {
    const at = this.holders.indexOf(holder);
    if (at >= 0) this.holders.splice(at, 1), this.marks.pop();
    // What it held is gone: another holder may use the slots.
    for (const other of this.holders) other.wake();
  }

  /**
   * How many jobs `holder` may fetch: the pool's room, and while others want work too, no more
   * than its part, less what the others that started fewer jobs lack of theirs (the holder whose
   * job just finished fetches first: without that, at `concurrency: 1` it would fetch every time).
   */
  room(holder: SlotHolder): number {
    const room = this.prefetch.room(this.running(), this.held());
    let wanting = 0;
    for (const h of this.holders) if (h.wants) wanting++;
    if (wanting <= 1) return room;
    const part = Math.ceil(this.prefetch.room(0, 0) / wanting);
    let owed = 0;
    for (const h of this.holders)
      if (h !== holder && h.wants && h.started < holder.started) owed += Math.max(0, part - h.running - h.held);
    return Math.min(room - owed, part - holder.running - holder.held);
  }

  /**
   * `from` freed a slot or fetched fewer than it asked: the others whose fetch was short of room
   * may fetch now rather than at their next poll. Those that got a whole batch fetch again on
   * their own as its jobs start.
   */
  offer(from: SlotHolder): void {
    if (this.holders.length === 1 || this.running() >= this.total) return;
    for (const h of this.holders) if (h.short && h !== from && h.wants) h.fetchIfDue();
  }

  /** A holder's handlers running changed by `delta`. */
  ran(delta: number): void {
    this.runningSum += delta;
  }

  /** A holder's held jobs (SlotHolder.held) changed by `delta`. */
  holding(delta: number): void {
    this.heldSum += delta;
  }

  running(): number {
    return this.runningSum;
  }

  held(): number {
    return this.heldSum;
  }

  /** Starts held jobs while slots are free, the best first whichever holder fetched it. */
  fill(from: SlotHolder): void {
    if (this.holders.length === 1) {
      while (from.running < this.total && from.startNext());
      return;
    }
    // Room for every job held or asked for: no choice to make, every held job starts.
    if (this.total - this.running() >= this.held()) {
      for (const h of this.holders) {
        let ran = false;
        while (h.startNext()) ran = true;
        if (ran && h !== from) h.fetchIfDue();
      }
      return;
    }
    const { holders, marks } = this;
    // A loop, not marks.fill(): the builtin's call costs more than the few holders it clears.
    for (let i = 0; i < marks.length; i++) marks[i] = NONE;
    let anyStarted = false;
    while (this.running() < this.total) {
      // The best head, and the best of the others: the best holder starts jobs until its head is not.
      let next = -1;
      let rank = Infinity;
      let since = Infinity;
      let rank2 = Infinity;
      let since2 = Infinity;
      for (let i = 0; i < holders.length; i++) {
        const h = holders[i]!;
        const r = h.rank();
        if (r === Infinity || r > rank2 || marks[i]! & BLOCKED) continue;
        const s = h.since();
        if (r < rank || (r === rank && s < since)) {
          rank2 = rank;
          since2 = since;
          next = i;
          rank = r;
          since = s;
        } else if (r < rank2 || s < since2) {
          rank2 = r;
          since2 = s;
        }
      }
      if (next < 0) break;
      const h = holders[next]!;
      let ran = false;
      while (this.running() < this.total && h.startNext()) {
        ran = true;
        const r = h.rank();
        if (r > rank2 || (r === rank2 && h.since() > since2)) break;
      }
      if (!ran) marks[next]! |= BLOCKED;
      else if (h !== from) (marks[next]! |= STARTED), (anyStarted = true);
    }
    // They fetch behind what just started.
    if (anyStarted) for (let i = 0; i < holders.length; i++) if (marks[i]! & STARTED) holders[i]!.fetchIfDue();
  }
}

/** Where a partitioned tick hands its shared slots to each partition's tick (not a public option). */
export const SHARED_SLOTS: unique symbol = Symbol("tickq.sharedSlots");

export type TickOptionsWithSlots = TickOptions & { [SHARED_SLOTS]?: SharedSlots };
