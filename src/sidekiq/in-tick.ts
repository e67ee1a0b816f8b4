// A tick as a Sidekiq process (tick/capability.ts): three more KEYS on every
// call, begin's `info`, a beat section in step, finish and every extend, and
// each plain job listed on the Busy page while it runs (an ordered id is no
// Sidekiq job). Off (no `sidekiqProcesses`): none of that. Always: a failed
// plain run keeps its backtrace as Sidekiq does (`error_backtrace`, backtrace.ts).
import type { SidekiqRuntime } from "./runtime.js";
import type { Capability, JobHooks, TickPart, TickStart } from "../tick/capability.js";
import type { JobPayload } from "../job/payload.js";
import { redisNowSec } from "../tick/runtime.js";
import { compressedBacktrace } from "./backtrace.js";
import { TickBeats } from "./process.js";

export const sidekiqCapability = (runtime: SidekiqRuntime): Capability => {
  const job: JobHooks = { failureFields: (payload, error) => backtraceFields(runtime, payload, error) };
  return {
    name: "sidekiq",
    forTick: (tick) => (runtime.sidekiq ? { ...processPart(runtime, tick), job } : { job }),
  };
};

/** `error_backtrace` of a failure: the job's own `backtrace` option, as Sidekiq reads it; without one, tickq's `backtraceLines`. */
async function backtraceFields(
  runtime: SidekiqRuntime,
  payload: JobPayload,
  error: unknown,
): Promise<Record<string, unknown> | undefined> {
  const setting = payload.backtrace ?? (runtime.backtraceLines > 0 ? runtime.backtraceLines : undefined);
  const backtrace = await compressedBacktrace(setting, error);
  return backtrace === undefined ? undefined : { error_backtrace: backtrace };
}

/** The tick as a Sidekiq process: its keys, info, beats and Busy page. */
function processPart(runtime: SidekiqRuntime, tick: TickStart): TickPart {
  const beats = new TickBeats(runtime.sidekiq!, runtime.prefix, {
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
}
