// The steps a pipeline has in flight: two at most, one in each lane, so
// that a replay is only ever of its lane's last call and the other lane's
// later number never makes it stale (lib/tick/replay-call.lua). Where each
// call is its own request (HTTP), lanes 'a' and 'b': the second goes half a
// round trip after the first at the soonest, and never in the turn of the
// event loop that sent the first, so the two stay apart: sent together,
// they would ride one request (@upstash/redis pipelines the calls made in
// one turn) and their round trips would not overlap. The first's request
// leaves only as its turn ends: the fill that sent it goes on starting
// jobs, which on a loaded host outlasts half a round trip. Over one
// connection (TCP), lanes 'c' and 'd': Redis runs the calls in the order
// they were written, so the second is written as soon as it is due and
// waits queued at Redis while the first runs. One lane holds one call at a
// time either way.

/** A step's lane (lib/tick/replay-call.lua): a and b over HTTP, c and d over one connection. */
export type Lane = "a" | "b" | "c" | "d";

/** Whether two steps may be in flight, and how: none, apart (HTTP requests), or on one connection (TCP). */
export type LaneMode = "one" | "requests" | "connection";

export class StepLanes {
  // The first lane holds a step: the next goes in the second (two at most, so the second is then free).
  #first = false;
  #count = 0;
  #sentAt = 0;
  // Over HTTP: a step was sent in this turn, and no timer has run since.
  #sameTurn = false;
  readonly #names: readonly [Lane, Lane] | undefined;

  constructor(private readonly mode: LaneMode) {
    this.#names = mode === "requests" ? ["a", "b"] : mode === "connection" ? ["c", "d"] : undefined;
  }

  /** No step is in flight. */
  idle(): boolean {
    return this.#count === 0;
  }

  /** Another step may go now. */
  open(): boolean {
    return this.#count === 0 || (this.#names !== undefined && this.#count === 1);
  }

  /**
   * How long from `now` until a step may go beside the one in flight: over HTTP half a round trip
   * (`stepMs`) after that one was sent, and at least 1 ms (a timer) while its turn lasts; over one
   * connection at once.
   */
  besideIn(now: number, stepMs: number): number {
    if (this.mode !== "requests") return 0;
    return Math.max(this.#sameTurn ? 1 : 0, this.#sentAt + stepMs / 2 - now);
  }

  /** A timer ran: every step sent before it went in an earlier turn. */
  turnEnded(): void {
    this.#sameTurn = false;
  }

  /** Marks a step going: its lane, undefined when steps do not overlap. */
  take(): Lane | undefined {
    this.#count++;
    this.#sameTurn = this.mode === "requests";
    const names = this.#names;
    if (names === undefined) return undefined;
    if (!this.#first) {
      this.#first = true;
      return names[0];
    }
    return names[1];
  }

  /** The step just taken was handed to the client at `now`: one beside it waits from then. */
  sent(now: number): void {
    this.#sentAt = now;
  }

  /** Marks the step of `lane` answered (or failed for good). */
  free(lane: Lane | undefined): void {
    this.#count--;
    if (lane !== undefined && lane === this.#names?.[0]) this.#first = false;
  }
}
