// The process's clock for durations: monotonic, so a step of the host's
// wall clock (NTP, a VM resumed, an operator) can neither stretch nor cut a
// lease, a budget, a timeout or a wait. Wall time (due times, expiry, rate
// windows, failed_at) comes from Redis, never from here.

// The Performance object, read once: in Node the global `performance` is a lazy accessor, so each
// read of it is a getter call and an IC miss, some 700 instructions; a no-op job reads the clock
// three times (bench/client-instructions.ts counts the difference). A test that fakes `performance`
// after this module loaded (vi.useFakeTimers) does not move this clock.
const clock: { now(): number } = globalThis.performance;

/** Milliseconds on a monotonic clock; only differences between two readings mean anything. */
export const monotonicMs = (): number => clock.now();

/**
 * The option createTestTickq (tickq/testing) sets on the tickq it builds: only a
 * runtime built with it ticks a prefix whose wall time is a virtual clock's
 * (lib/common/prefix-keys.lua). A symbol, so no options object read from JSON
 * or an environment can carry it.
 */
export const VIRTUAL_CLOCK: unique symbol = Symbol.for("tickq.virtualClock") as never;
