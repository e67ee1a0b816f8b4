// A tick as a Sidekiq process (tick/capability.ts): three more KEYS on every
// call, begin's `info`, a beat section in step, finish and every extend, and
// each plain job listed on the Busy page while it runs (an ordered id is no
// Sidekiq job). Off (no `sidekiqProcesses`): no part at all.
import type { SidekiqRuntime } from "./runtime.js";
import type { Capability } from "../tick/capability.js";
import { redisNowSec } from "../tick/runtime.js";
import { TickBeats } from "./process.js";

export const sidekiqCapability = (runtime: SidekiqRuntime): Capability => ({
  name: "sidekiq",
  forTick(tick) {
    if (!runtime.sidekiq) return undefined;
    const beats = new TickBeats(runtime.sidekiq, runtime.prefix, {
      tickId: tick.tickId,
      concurrency: tick.concurrency,
      plan: runtime.plan,
      nowSec: () => redisNowSec(runtime),
    });
    return {
      keys: { process: beats.keys },
      beginArgs: () => ({ info: beats.info() }),
      started: (t) => beats.start(() => void t.fence.confirm()),
      stepArgs: () => ({ beat: beats.section() }),
      finishArgs: () => ({ beat: beats.section() }),
      extendArgs: () => ({ beat: beats.section() }),
      runPlain: (job, run, signal) => beats.track(job, () => run(signal)),
      stop: () => beats.stop(),
    };
  },
});
