// The terms of debounce (a job definition's `debounce`).
import type { KeyArgs } from "../flow/types.js";

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
