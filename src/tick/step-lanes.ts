// The steps a pipeline has in flight. Over TCP one at a time: calls keep
// their numbers in order. Where each call is its own request (HTTP), two
// may be in flight, one in each lane: lane calls keep their numbers apart
// (lib/tick/replay-call.lua), so whichever reaches Redis second is neither
// stale nor a replay, and each lane holds one call at a time so that a
// replay is only ever of its lane's last call. The second goes half a
// round trip after the first at the soonest, so the two stay apart: sent
// together, they would ride one request (@upstash/redis pipelines calls
// made in the same turn) and their round trips would not overlap.

/** A step's lane (lib/tick/replay-call.lua). */
export type Lane = "a" | "b";

export class StepLanes {
  // Lane a holds a step: the next goes in lane b (two at most, so b is then free).
  #a = false;
  #count = 0;
  #sentAt = 0;

  constructor(private readonly overlap: boolean) {}

  /** No step is in flight. */
  idle(): boolean {
    return this.#count === 0;
  }

  /** Another step may go now. */
  open(): boolean {
    return this.#count === 0 || (this.overlap && this.#count === 1);
  }

  /** How long from `now` until a step may go beside the one in flight: half a round trip (`stepMs`) after that one was sent. */
  besideIn(now: number, stepMs: number): number {
    return Math.max(0, this.#sentAt + stepMs / 2 - now);
  }

  /** Marks a step sent at `now`: its lane, undefined when steps do not overlap. */
  take(now: number): Lane | undefined {
    this.#count++;
    this.#sentAt = now;
    if (!this.overlap) return undefined;
    if (!this.#a) {
      this.#a = true;
      return "a";
    }
    return "b";
  }

  /** Marks the step of `lane` answered (or failed for good). */
  free(lane: Lane | undefined): void {
    this.#count--;
    if (lane === "a") this.#a = false;
  }
}
