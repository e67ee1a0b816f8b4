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
// not stop has `ctx.fence` to refuse its stale writes.
import type { Fence } from "../lease.js";

export interface OrderedGuard {
  /** A signal for one execution, and the call that releases it when done. */
  open(): { signal: AbortSignal; done(): void };
  stop(): void;
}

export function orderedGuard(fence: Fence, tickSignal: AbortSignal, leaseMs: number): OrderedGuard {
  const live = new Set<AbortController>();
  const abortAll = (reason: unknown) => {
    for (const c of live) c.abort(reason);
    live.clear();
  };
  const onTickAbort = () => abortAll(tickSignal.reason);
  tickSignal.addEventListener("abort", onTickAbort);
  // Well inside the fence's margin (a quarter of the lease, at most 1 s).
  const every = Math.max(10, Math.min(100, Math.floor(leaseMs / 10)));
  const timer = setInterval(() => {
    if (live.size > 0 && !fence.valid()) abortAll(new Error("tick lease could not be confirmed in time: another tick may soon hold this id"));
  }, every);

  return {
    open() {
      const controller = new AbortController();
      if (tickSignal.aborted) controller.abort(tickSignal.reason);
      else live.add(controller);
      return { signal: controller.signal, done: () => void live.delete(controller) };
    },
    stop() {
      clearInterval(timer);
      tickSignal.removeEventListener("abort", onTickAbort);
    },
  };
}
