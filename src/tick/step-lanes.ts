// The steps a pipeline has in flight. Over TCP one at a time: calls keep
// their numbers in order. Where each call is its own request (HTTP), two
// may be in flight, one in each lane: lane calls keep their numbers apart
// (lib/tick/replay-call.lua), so whichever reaches Redis second is neither
// stale nor a replay, and each lane holds one call at a time so that a
// replay is only ever of its lane's last call.

/** A step's lane (lib/tick/replay-call.lua). */
export type Lane = "a" | "b";

export class StepLanes {
  #a = false;
  #b = false;
  #count = 0;

  constructor(private readonly overlap: boolean) {}

  /** No step is in flight. */
  idle(): boolean {
    return this.#count === 0;
  }

  /** Another step may go now. */
  open(): boolean {
    return this.#count === 0 || (this.overlap && this.#count === 1);
  }

  /** Marks a step sent: its lane, undefined when steps do not overlap. */
  take(): Lane | undefined {
    this.#count++;
    if (!this.overlap) return undefined;
    if (!this.#a) {
      this.#a = true;
      return "a";
    }
    this.#b = true;
    return "b";
  }

  /** Marks the step of `lane` answered (or failed for good). */
  free(lane: Lane | undefined): void {
    this.#count--;
    if (lane === "a") this.#a = false;
    else if (lane === "b") this.#b = false;
  }
}
