// What a job definition may ask of flow control (src/flow/) and debounce
// (src/debounce/): the shapes of its `concurrency`, `rateLimit` and `debounce`,
// here beside the definition that holds them; those folders check and run them.

/**
 * What a key function is given: the job's args tuple. Where the job's args
 * are not inferred (a registry entry, where they are `never`), unknown[], so
 * an unannotated `([id]) => …` still compiles. Key functions are declared as
 * methods, checked both ways, so one that annotates its own tuple fits too.
 */
export type KeyArgs<A> = [A] extends [never] ? unknown[] : A;

/** At most `limit` runs at once per key (`key(args)`), across every tick. */
export interface ConcurrencyLimit<A extends unknown[] = unknown[]> {
  /** The key a job counts against, from its args (a customer id, a host). */
  key(args: KeyArgs<A>): string;
  /** Runs at once per key; at least 1. */
  limit: number;
}

/** At most `limit` starts per key (`key(args)`) in any `periodMs` (a sliding window). */
export interface RateLimit<A extends unknown[] = unknown[]> {
  /** The key a job counts against, from its args. */
  key(args: KeyArgs<A>): string;
  /** Starts per key in any window of `periodMs`; at least 1. */
  limit: number;
  /** The window's length, in ms. */
  periodMs: number;
}

/**
 * Trailing debounce: the job of a key runs `delayMs` after the last enqueue of
 * that key, with the last args, and no later than `maxDelayMs` after the first.
 */
export interface Debounce<A extends unknown[] = unknown[]> {
  /** The key enqueues are merged by, from the args (a document id, a user id). */
  key(args: KeyArgs<A>): string;
  /** How long after the last enqueue of a key its job runs; at least 1 ms. */
  delayMs: number;
  /** The longest a key's job waits after the first enqueue of its window; at least `delayMs`. */
  maxDelayMs: number;
}
