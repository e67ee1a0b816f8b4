// The fence around a tick's work. A tick may start a job only while its
// lease is confirmed: a call that found the lease and extended it, sent
// less than a lease ago (minus a margin for clocks and start-up). A tick
// whose event loop froze past its lease (a CPU-bound handler) wakes with a
// stale confirmation, asks Redis, learns the lease is gone — another tick
// may already be running its jobs — and stops, aborting its handlers.
// Capabilities add sections to every extend and read its reply (cancels: the
// reply names the tick's jobs cancelled, and the next extend says the tick
// heard of them; see tick/capability.ts). So that a cancel reaches a running
// handler within `cancelCheckMs`, the tick makes a call at least that often
// (an extend when no step went since).
import { monotonicMs } from "./clock.js";
import type { RoundTrips } from "../redis/adapter.js";
import type { Runtime } from "./runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { ExtendArgs, Extended } from "./capability.js";
import type { Fence } from "./fence.js";
import type { TickKeys } from "./numbered.js";
import { loadText, type TickLoad } from "./load.js";

/** What the fence asks of the tick it serves. */
export interface FenceTick {
  /** The lease is gone (extend found no key). */
  lost(): void;
  /** The tick's load now (pipeline.ts), which every extend reports; none: an extend leaves it. */
  load?(): TickLoad | undefined;
  /** The capabilities' sections of an extend. */
  extendArgs?(): Partial<ExtendArgs>;
  /** The reply to the capabilities (undefined: the call failed, what it carried goes back). */
  extended?(reply: Extended | undefined): void;
  /** Whether the capabilities ask for another extend at once (cancels heard meanwhile). */
  extendAgain?(): boolean;
}

interface FenceOptions {
  tickId: string;
  leaseMs: number;
  trips: RoundTrips;
  /** The tick the fence serves, called as its methods: a tick makes no closure for its fence. */
  tick: FenceTick;
  /** The longest the tick goes without a call to Redis, so that it learns of cancels that soon. */
  cancelCheckMs: number;
  /** KEYS the capabilities add to every tick call (tick/capability.ts). */
  keys?: Partial<TickKeys>;
}

function confirmIfDue(fence: LeaseFence): void {
  fence.confirmIfDue();
}

export function fenceLease(runtime: Runtime, options: FenceOptions): Fence {
  return new LeaseFence(runtime, options);
}

// A class, not an object of closures made each tick: the pipeline asks valid() before each job it
// starts, and a tick's new closure threw away the optimized code that had inlined the last tick's
// ("wrong call target", bench/drain-warmup.ts). The prototype's methods are the same for every tick.
class LeaseFence implements Fence {
  private readonly margin: number;
  private readonly leaseMs: number;
  private confirmedAt = monotonicMs();
  // Until begin's reply confirms the lease, no extend goes: one sent while begin is on its way can reach
  // Redis first (over HTTP each call is its own request) and find no lease, which the tick never lost.
  private begun = false;
  private stopped = false;
  private inFlight: Promise<boolean> | undefined = undefined;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly every: number;

  constructor(
    private readonly runtime: Runtime,
    private readonly options: FenceOptions,
  ) {
    const { leaseMs, cancelCheckMs } = options;
    this.leaseMs = leaseMs;
    this.margin = Math.min(1_000, Math.floor(leaseMs / 4));
    const every = Math.max(10, Math.min(Math.floor(leaseMs / 3), cancelCheckMs));
    // Checked four times a period: a call is due `every` after the last, not up to twice that.
    this.every = every;
    this.timer = setInterval(confirmIfDue, Math.max(10, Math.floor(every / 4)), this);
  }

  /** Every quarter period: an extend goes once a period passed since the lease was last confirmed. */
  confirmIfDue(): void {
    if (!this.stopped && this.begun && monotonicMs() - this.confirmedAt >= this.every) void this.confirm();
  }

  valid(): boolean {
    return monotonicMs() < this.confirmedAt + this.leaseMs - this.margin;
  }

  confirmed(sentAt: number): void {
    this.begun = true;
    this.confirmedAt = Math.max(this.confirmedAt, sentAt);
  }

  age(): number {
    return monotonicMs() - this.confirmedAt;
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  confirm(): Promise<boolean> {
    if (this.inFlight) return this.inFlight;
    const { runtime, options } = this;
    const { tickId, leaseMs, trips, tick, keys } = options;
    const sentAt = monotonicMs();
    let answered = false;
    const inFlight = runCall(
      runtime,
      protocol.extend,
      { lease: runtime.keys.lease(tickId), process: keys?.process },
      {
        ...tick.extendArgs?.(),
        tickId,
        leaseMs,
        load: loadText(tick.load?.()),
      },
      trips,
    )
      .then((reply) => {
        answered = true;
        if (!reply.extended) {
          if (!this.stopped) tick.lost();
          return false;
        }
        this.confirmedAt = Math.max(this.confirmedAt, sentAt);
        // A stopped tick starts nothing more: what it would hear now could only outlive it.
        if (!this.stopped) tick.extended?.(reply);
        return true;
      })
      .catch((error: unknown) => {
        // Retried at the next interval; meanwhile the fence runs out on its own.
        tick.extended?.(undefined);
        runtime.logger.warn(`tickq: could not extend the lease of tick ${tickId}: ${(error as Error).message}`);
        return false;
      })
      .finally(() => {
        this.inFlight = undefined;
        // What a capability heard meanwhile is confirmed at once (tq.jobs.cancel waits for that).
        if (answered && !this.stopped && tick.extendAgain?.() === true) void this.confirm();
      });
    this.inFlight = inFlight;
    return inFlight;
  }
}
