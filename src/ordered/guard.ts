// The abort signal of each ordered execution. An id is exclusive only
// while its holder's lease lives: once the lease expires, the resurrector
// hands the id to another tick. A plain job may run twice (at-least-once);
// two overlapping runs of one id are what ordered jobs promise never to
// have. So an ordered handler's signal aborts not only at the deadline or
// when the lease is found gone, but as soon as the lease can no longer be
// assumed held (the fence could not be confirmed in time, lease.ts): Redis
// counts the lease from when the last confirming call arrived, later than
// it was sent, so the abort comes before the lease can expire, and a
// handler that stops on it never overlaps the next holder. One that does
// not stop has `ctx.fence` to refuse its stale writes. Flow jobs holding
// a slot of a unique or concurrency key (src/flow/) run under it too.
import type { Fence } from "../lease.js";

export interface OrderedGuard {
  /** The signal for an execution starting now. */
  signal(): AbortSignal;
  /** An execution ended. */
  done(): void;
  stop(): void;
}

// One controller serves every execution running at once: no allocation per
// execution. When it aborts for a lease in doubt, executions started later
// (after the lease was confirmed again) get a fresh one.
export function orderedGuard(fence: Fence, tickSignal: AbortSignal, leaseMs: number): OrderedGuard {
  let current = new AbortController();
  let running = 0;
  const onTickAbort = () => current.abort(tickSignal.reason);
  tickSignal.addEventListener("abort", onTickAbort);
  // Well inside the fence's margin (a quarter of the lease, at most 1 s).
  const every = Math.max(10, Math.min(100, Math.floor(leaseMs / 10)));
  const timer = setInterval(() => {
    if (running === 0 || fence.valid() || current.signal.aborted) return;
    current.abort(new Error("tick lease could not be confirmed in time: another tick may soon hold this id or key"));
  }, every);

  return {
    signal() {
      if (current.signal.aborted && !tickSignal.aborted) current = new AbortController();
      else if (tickSignal.aborted && !current.signal.aborted) current.abort(tickSignal.reason);
      running++;
      return current.signal;
    },
    done: () => void running--,
    stop() {
      clearInterval(timer);
      tickSignal.removeEventListener("abort", onTickAbort);
    },
  };
}
