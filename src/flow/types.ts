// Flow control: unique jobs, per-key concurrency and rate limits (src/flow/).
//
// unique    a job's key (its definition's `uniqueKey`, or its name and args)
//           and a mode chosen at enqueue: while-executing, until-executed, coalesce
// slot      one of a key's `limit` concurrent runs, held by a tick while the
//           job sits in its inproc list (src/lua/lib/flow/flow.lua)
// parked    a job whose key had no free slot: it waits in a list per key and
//           goes back to the head of its queue when a slot frees
// deferred  a job over its rate limit: back in the schedule set, due when it may start

/**
 * - `while-executing`: never two runs of the key at once (a concurrency limit of 1 on it).
 * - `until-executed`: at most one job of the key queued or running; a duplicate
 *   enqueue writes nothing and returns the existing jid. The claim ends when the
 *   job succeeds or goes dead (a retry keeps it).
 * - `coalesce`: at most one job of the key waiting, never two running; a duplicate
 *   while one waits returns its jid, a duplicate while one runs queues one more run.
 */
export type UniqueMode = "while-executing" | "until-executed" | "coalesce";

/** Every {@link UniqueMode}, for checking a mode a caller gives. */
export const UNIQUE_MODES: readonly UniqueMode[] = ["while-executing", "until-executed", "coalesce"];

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

/** Per job name, in `stats().flow`. */
export interface FlowStats {
  /** Slots its running jobs hold now (unique and concurrency keys). */
  locksHeld: number;
  /** Its jobs parked on a busy key, waiting for a slot. */
  waiting: number;
  /** Its jobs a rate limit pushed to later, not yet due. */
  deferred: number;
}
