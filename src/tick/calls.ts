// A tick's numbered calls (lib/tick/replay-call.lua): begin is call 1, every
// housekeep, step and finish takes the next number. A call that fails in
// transit (a dropped connection, a Redis restarting, a timeout) is sent again
// with the same number and arguments: Redis either never ran it, and runs it
// now, or ran it, and the replay answers the kept reply. A retry can neither
// lose a job nor run one twice.
//
// The patience runs from the first failure, not the first send: a call that
// timed out has spent its redisTimeoutMs already, and its reply may be lost
// after Redis ran it (a slow HTTP round trip under load). Given up there, a
// begin or a step left the jobs it fetched in the tick's list behind its
// lease, for a next tick that a Worker with no cron may never run.
// A call is thus answered or given up within 2 × redisTimeoutMs + patience
// (patience ≤ redisTimeoutMs): one that times out every time is sent twice
// (test/integration/replay/unanswered-call.test.ts). A resend that lands
// after the lease ended acts on nothing it no longer holds: begin answers
// "not begun", a step fetches nothing and acks only jobs still in the
// tick's list (test/integration/replay/late-reply-after-lease.test.ts).
import { monotonicMs } from "./clock.js";
import { TickqError } from "../errors.js";
import type { TypedCall } from "../protocol/define.js";
import type { RoundTrips } from "../redis/adapter.js";
import type { Runtime } from "./runtime.js";
import { runCall } from "../protocol/run.js";
import type { TickCalls, TickKeys } from "./numbered.js";

/** A Lua error or a refused write will fail the same way again: no resend. */
export function transient(error: unknown): boolean {
  if (!(error instanceof TickqError)) return false;
  if (error.code === "REDIS_TIMEOUT" || error.code === "NOT_REPLICATED") return true;
  return error.code === "REDIS" && !/user_script|Error running script|WRONGTYPE|Unexpected reply/.test(error.message);
}

/** How long a call is resent after its first failure: a dead Redis still fails within redisTimeoutMs and this. */
export function callPatienceMs(runtime: Runtime, leaseMs = Number.POSITIVE_INFINITY): number {
  return Math.min(leaseMs, runtime.redisTimeoutMs, 5_000);
}

/**
 * Runs a call whose script answers a replay as it answered the first run (its header says why), resending it
 * unchanged on transient errors for up to `patienceMs` after its first failure.
 */
export async function sendResent<Keys extends object, Args extends object, Reply>(
  runtime: Runtime,
  call: TypedCall<Keys, Args, Reply>,
  keys: Keys,
  args: Args,
  trips: RoundTrips,
  patienceMs: number,
): Promise<Reply> {
  let failedAt: number | undefined;
  for (let wait = 50; ; wait = Math.min(wait * 2, 1_000)) {
    try {
      return await runCall(runtime, call, keys, args, trips);
    } catch (error) {
      failedAt ??= monotonicMs();
      if (!transient(error) || monotonicMs() - failedAt + wait > patienceMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

export function tickCalls(runtime: Runtime, keys: TickKeys, trips: RoundTrips, patienceMs: number): TickCalls {
  return new NumberedCalls(runtime, keys, trips, patienceMs);
}

// A class whose methods every tick shares: a tick makes one object, not two closures.
class NumberedCalls implements TickCalls {
  private seq = 1;

  constructor(
    private readonly runtime: Runtime,
    private readonly keys: TickKeys,
    private readonly trips: RoundTrips,
    private readonly patienceMs: number,
  ) {}

  next(): number {
    return ++this.seq;
  }

  send<Args extends object, Reply>(call: TypedCall<TickKeys, Args, Reply>, args: Args): Promise<Reply> {
    return sendResent(this.runtime, call, this.keys, args, this.trips, this.patienceMs);
  }
}
