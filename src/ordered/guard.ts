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
// Such an abort blames nobody: Redis was slow to answer, the lease may well
// be held. The run goes back (no deadline, no poison, no failure:
// isLeaseInDoubt) and runs again, counted in `doubts`: a handler that
// blocks the event loop for most of a lease stops its own extends, and would
// go round for ever, so the LEASE_DOUBTS_MAX-th stop is a failed attempt.
import type { Fence } from "../tick/fence.js";

const IN_DOUBT = "TickqLeaseInDoubt";

/** The stop for a lease in doubt that counts as a failed attempt (retry rules apply) instead of going back. */
export const LEASE_DOUBTS_MAX = 5;

/** The failure of a run stopped for a lease in doubt LEASE_DOUBTS_MAX times: why, and what to change. */
export function leaseDoubtsError(reason: unknown): Error {
  const message =
    `its run was stopped ${LEASE_DOUBTS_MAX} times because its tick could not confirm its lease in time (${(reason as Error).message}). ` +
    "A handler that blocks the event loop (CPU-bound work that does not await) for most of the lease keeps the tick from extending it: " +
    "await between chunks of work or move it to a worker thread, or raise leaseMs; if Redis is slow, see to Redis";
  return Object.assign(new Error(message), { name: IN_DOUBT });
}

function leaseInDoubt(leaseMs: number): Error {
  const message = `tick lease not confirmed within ${leaseMs} ms (Redis slow?): stopped before another tick could take this id or key; it runs again`;
  return Object.assign(new Error(message), { name: IN_DOUBT });
}

/** The run was aborted only because its tick could not confirm its lease in time. */
export function isLeaseInDoubt(reason: unknown): boolean {
  return reason instanceof Error && reason.name === IN_DOUBT;
}

/**
 * What an execution started under the guard holds: whether its guard aborted it and why, read as
 * fields, and its AbortSignal, made only when something reads it (an ordered handler's ctx.signal).
 */
export interface GuardedRun {
  readonly aborted: boolean;
  readonly reason: unknown;
  signal(): AbortSignal;
}

export interface OrderedGuard {
  /** The signal for an execution starting now. */
  signal(): AbortSignal;
  /** An execution starting now: its signal's state, its signal made when asked for. */
  start(): GuardedRun;
  /** An execution ended. */
  done(): void;
  stop(): void;
}

// One controller serves every execution started between two aborts for a lease in doubt (an epoch): no
// allocation per execution. When it aborts for a lease in doubt, executions started later (after the
// lease was confirmed again) get a fresh one. Only the guard aborts it, and the tick's signal tells it
// when it aborts, so both states are kept here as fields: an execution reads no `aborted` getter, which
// its start met on signals of many shapes and looked up generically, three a run
// (bench/ordered-instructions.ts). An epoch's AbortController is made when a run first asks for its
// signal, not with the epoch: a tick whose handlers never read ctx.signal makes none (an AbortSignal is
// one of a tick's costliest objects: bench/ordered-instructions.ts).
class Epoch implements GuardedRun {
  aborted = false;
  reason: unknown = undefined;
  private controller: AbortController | undefined = undefined;

  signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

/** `onDoubt`: the guard aborted `running` executions for a lease in doubt. */
export function orderedGuard(
  fence: Fence,
  tickSignal: AbortSignal,
  leaseMs: number,
  onDoubt?: (running: number) => void,
): OrderedGuard {
  return new Guard(fence, tickSignal, leaseMs, onDoubt);
}

// A class whose methods every tick shares, its timer and listener given the guard itself (setInterval's
// argument, an EventListener object): one closure a tick (`done`), where the guard made six.
class Guard implements OrderedGuard {
  private current = new Epoch();
  private tickAborted: boolean;
  private running = 0;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly fence: Fence,
    private readonly tickSignal: AbortSignal,
    private readonly leaseMs: number,
    private readonly onDoubt: ((running: number) => void) | undefined,
  ) {
    this.tickAborted = tickSignal.aborted;
    tickSignal.addEventListener("abort", this);
    // Well inside the fence's margin (a quarter of the lease, at most 1 s).
    const every = Math.max(10, Math.min(100, Math.floor(leaseMs / 10)));
    this.timer = setInterval(checkLease, every, this);
  }

  /** The tick's signal aborted (EventListener). */
  handleEvent(): void {
    this.tickAborted = true;
    if (!this.current.aborted) this.current.abort(this.tickSignal.reason);
  }

  /** Every interval: executions running while the lease can no longer be assumed held are stopped. */
  check(): void {
    if (this.running === 0 || this.fence.valid() || this.current.aborted) return;
    this.current.abort(leaseInDoubt(this.leaseMs));
    this.onDoubt?.(this.running);
  }

  start(): GuardedRun {
    if (this.current.aborted && !this.tickAborted) this.current = new Epoch();
    else if (this.tickAborted && !this.current.aborted) this.current.abort(this.tickSignal.reason);
    this.running++;
    return this.current;
  }

  signal(): AbortSignal {
    return this.start().signal();
  }

  // A function of its own (runs hand it on as their `done`), the one the guard makes.
  readonly done = (): void => void this.running--;

  stop(): void {
    clearInterval(this.timer);
    this.tickSignal.removeEventListener("abort", this);
  }
}

function checkLease(guard: Guard): void {
  guard.check();
}
