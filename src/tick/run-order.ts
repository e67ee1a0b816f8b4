// When a lane step's reply is taken (its jobs join the held ones). Over
// HTTP the two steps in flight ride their own sockets: the one sent second
// may reach Redis first and fetch the jobs ahead in priority or queue
// order, and either reply may come back first. Redis numbers each lane
// step it runs (step.lua's `ran`), so a reply numbered next after the last
// one taken is taken at once; another waits until the other step in flight
// has answered or failed, and when both have answered, the lower number
// goes first. A reply with no number (Lua before the count, a step that
// fetched nothing, or a step over one TCP connection, whose calls Redis runs
// in the order they were written) keeps send order: it waits for a step sent
// before it.
// Nothing ever waits for a reply that has come, so nothing waits forever.

interface Held {
  ran: number | undefined;
  sent: number;
  take: () => void;
}

export class RunOrder {
  // The run number of the reply last taken (0: none yet this pipeline).
  #last = 0;
  #sent = 0;
  // The send numbers of the steps in flight not yet answered (two at most).
  readonly #unanswered: number[] = [];
  // A reply waiting for the other step (one at most: two are in flight at most).
  #held: Held | undefined;

  /** A step goes: its send number, to hand back with its reply or failure. */
  sent(): number {
    const n = ++this.#sent;
    this.#unanswered.push(n);
    return n;
  }

  /** The reply of step `sent`, numbered `ran` by Redis: `take` runs now, or once it is its turn. */
  answered(sent: number, ran: number | undefined, take: () => void): void {
    this.#gone(sent);
    const held = this.#held;
    if (held) {
      // Both have answered: the lower run number first, else (one without) the one sent first.
      this.#held = undefined;
      const first = ran !== undefined && held.ran !== undefined ? ran < held.ran : sent < held.sent;
      const [one, two] = first ? [{ ran, take }, held] : [held, { ran, take }];
      // The second is taken even if taking the first threw: else its lane is never freed.
      try {
        this.#take(one.ran, one.take);
      } finally {
        this.#take(two.ran, two.take);
      }
      return;
    }
    const other = this.#unanswered[0];
    const waits = other !== undefined && (ran === undefined ? other < sent : ran !== this.#last + 1);
    if (waits) this.#held = { ran, sent, take };
    else this.#take(ran, take);
  }

  /** Step `sent` failed for good: a reply waiting for it is taken now. */
  failed(sent: number): void {
    this.#gone(sent);
    const held = this.#held;
    this.#held = undefined;
    if (held) this.#take(held.ran, held.take);
  }

  #gone(sent: number): void {
    const at = this.#unanswered.indexOf(sent);
    if (at >= 0) this.#unanswered.splice(at, 1);
  }

  #take(ran: number | undefined, take: () => void): void {
    if (ran !== undefined && ran > this.#last) this.#last = ran;
    take();
  }
}
