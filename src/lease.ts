// Keeps a tick's lease alive while its handlers run. Every step already
// extends it; this timer covers batches that run longer than a third of the
// lease. If the lease is found gone, the tick must stop: its jobs may be
// resurrected and run elsewhere.
import type { RoundTrips } from "./redis.js";
import type { Runtime } from "./runtime.js";
import { scripts } from "./scripts/index.js";

export interface LeaseKeeper {
  renewed(): void;
  stop(): void;
}

export function keepLease(runtime: Runtime, tickId: string, leaseMs: number, trips: RoundTrips, onLost: () => void): LeaseKeeper {
  const every = Math.max(10, Math.floor(leaseMs / 3));
  let last = Date.now();
  let stopped = false;
  const timer = setInterval(async () => {
    if (stopped || Date.now() - last < every) return;
    last = Date.now();
    try {
      const extended = await runtime.run(scripts.extend, [runtime.keys.lease(tickId)], [tickId, leaseMs], trips);
      if (extended === 0 && !stopped) onLost();
    } catch (error) {
      // A failed extension is retried at the next interval; the lease has
      // two more intervals before it expires.
      runtime.logger.warn(`tickq: could not extend the lease of tick ${tickId}: ${(error as Error).message}`);
    }
  }, every);
  return {
    renewed: () => (last = Date.now()),
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
