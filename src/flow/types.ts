// Flow control: unique jobs, per-key concurrency and rate limits (src/flow/).
//
// unique    a job's key (its definition's `uniqueKey`, or its name and args)
//           and a mode chosen at enqueue: while-executing, until-executed, coalesce
// slot      one of a key's `limit` concurrent runs, held by a tick while the
//           job sits in its inproc list (src/lua/lib/flow/flow.lua)
// parked    a job whose key had no free slot: it waits in a list per key and
//           goes back to the head of its queue when a slot frees
// deferred  a job over its rate limit: back in the schedule set, due when it may start
//
// The limits a job definition declares are src/job/limits.ts; the mode an
// enqueue asks for is src/job/enqueue-options.ts UniqueMode.
import type { UniqueMode } from "../job/enqueue-options.js";

/** Every {@link UniqueMode}, for checking a mode a caller gives. */
export const UNIQUE_MODES: readonly UniqueMode[] = ["while-executing", "until-executed", "coalesce"];

/** Per job name, in `stats().flow`. */
export interface FlowStats {
  /** Slots its running jobs hold now (unique and concurrency keys). */
  locksHeld: number;
  /** Its jobs parked on a busy key, waiting for a slot. */
  waiting: number;
  /** Its jobs a rate limit pushed to later, not yet due. */
  deferred: number;
}
