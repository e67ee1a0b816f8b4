// What a tick needs for ordered ids, in one place so that tick.ts only
// threads it through: running either kind of work, the trailing arguments
// of its calls, and the guard that aborts ordered handlers before their
// lease can expire (guard.ts). With no ordered job declared it adds no
// argument, no timer and no Redis work.
import type { Fence } from "../lease.js";
import { runJob } from "../passes/execute.js";
import type { Runtime } from "../runtime.js";
import { runOrdered } from "./execute.js";
import { orderedGuard } from "./guard.js";
import { isOrdered, orderedArgs, type OrderedOutcome, type Work, type WorkOutcome } from "./work.js";

export interface OrderedInTick {
  /** Runs a plain job or an ordered id. */
  run(work: Work): Promise<WorkOutcome>;
  /** The ordered arguments that end a begin, step or finish call. */
  args(outcomes?: OrderedOutcome[]): (string | number)[];
  stop(): void;
}

export function orderedInTick(runtime: Runtime, fence: Fence, signal: AbortSignal, leaseMs: number, graceMs: number): OrderedInTick {
  const names = runtime.orderedNames;
  const guard = names.length > 0 ? orderedGuard(fence, signal, leaseMs) : undefined;
  return {
    run(work) {
      if (!isOrdered(work)) return runJob(runtime, work, signal, graceMs);
      // Ordered ids are fetched only for declared names: the guard is there.
      return runOrdered(runtime, work, guard!.signal()).finally(guard!.done);
    },
    args: (outcomes) => orderedArgs(names, outcomes),
    stop: () => guard?.stop(),
  };
}
