// The virtual clock a test moves. Its offset lives in Redis under the test's prefix
// (test_clock.lua), where every script reads wall time, so a due job, a sleep, a cron slot
// and a kept result all see the same now. now() reads no Redis: it runs on from the last
// reply on the process's monotonic clock, as the tick does.
import { monotonicMs } from "../tick/clock.js";
import { type Duration, durationMs } from "../duration.js";
import { TickqError } from "../errors.js";
import type { RedisAdapter } from "../redis/types.js";
import { type ClockReply, clockCall } from "./prefix.js";

/** The clock of a test tickq: virtual time, moved only by `advance`. */
export interface TestClock {
  /** The test's now, in epoch ms: Redis' time plus every advance so far. */
  now(): number;
  /** Moves the test's time forward by `duration` (ms, or "90s", "3d"); resolves at once, waiting for nothing. */
  advance(duration: Duration): Promise<void>;
  /** Moves the test's time forward to `at` (a Date or epoch ms); a time already past is a BAD_ARGS error. */
  advanceTo(at: Date | number): Promise<void>;
}

export function testClock(redis: RedisAdapter, prefix: string, claimed: ClockReply): TestClock {
  let offsetMs = Number(claimed.detail);
  // The prefix's now minus the monotonic clock, learnt from each reply.
  let skewMs = claimed.nowMs - monotonicMs();
  const now = () => Math.round(monotonicMs() + skewMs);
  const moveBy = async (byMs: number) => {
    const reply = await clockCall(redis, prefix, "advance", offsetMs + byMs);
    if (reply.state === "absent") {
      throw new TickqError("BAD_STATE", `clock.advance: the test prefix ${JSON.stringify(prefix)} was closed`);
    }
    offsetMs = Number(reply.detail);
    skewMs = reply.nowMs - monotonicMs();
  };
  return {
    now,
    advance: async (duration) => moveBy(durationMs(duration, "clock.advance")),
    advanceTo(at) {
      const atMs = at instanceof Date ? at.getTime() : at;
      const byMs = Math.ceil(atMs - now());
      if (!Number.isFinite(byMs) || byMs < 0) {
        return Promise.reject(
          new TickqError(
            "BAD_ARGS",
            `clock.advanceTo: ${String(at)} is not ahead of the test's now (${new Date(now()).toISOString()}); time only moves forward`,
          ),
        );
      }
      return moveBy(byMs);
    },
  };
}
