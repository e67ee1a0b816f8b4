// What a tick needs for ordered ids, in one place so that tick/run.ts only
// threads it through: running either kind of work, the trailing arguments
// of its calls, and the guard that aborts ordered handlers before their
// lease can expire (guard.ts), which serves flow jobs holding a slot too.
// With no ordered job declared and no flow job run it adds no argument, no
// timer and no Redis work.
import type { Fence } from "../tick/lease.js";
import { runJob } from "../tick/passes/execute.js";
import type { Runtime } from "../tick/runtime.js";
import { runOrdered } from "./execute.js";
import { orderedGuard, type OrderedGuard } from "./guard.js";
import { isOrdered, orderedArgs, type OrderedArgs, type OrderedOutcome, type Work, type WorkOutcome } from "./work.js";

export interface OrderedInTick {
  /** Runs a plain job or an ordered id. */
  run(work: Work): Promise<WorkOutcome>;
  /** The ordered arguments that end a begin, step or finish call. */
  args(outcomes?: OrderedOutcome[]): OrderedArgs | undefined;
  stop(): void;
}

export function orderedInTick(
  runtime: Runtime,
  fence: Fence,
  signal: AbortSignal,
  leaseMs: number,
  graceMs: number,
): OrderedInTick {
  const names = runtime.orderedNames;
  // Made for the first execution that needs it: an ordered id, or a flow
  // job holding a slot (src/flow/), exclusive only while the lease lives.
  let guard: OrderedGuard | undefined;
  const doubted = (running: number) =>
    runtime.logger.warn(
      `tickq: lease not confirmed within ${leaseMs} ms (Redis slow?): ${running} exclusive run(s) stopped, to run again`,
    );
  const guarded = () => (guard ??= orderedGuard(fence, signal, leaseMs, doubted));
  return {
    run(work) {
      if (isOrdered(work)) {
        const g = guarded();
        return runOrdered(runtime, work, g.signal()).finally(g.done);
      }
      if (work.flowFence === undefined) return runJob(runtime, work, signal, graceMs);
      const g = guarded();
      // runJob never rejects; counting it done on the side keeps its outcome one hop nearer the ack.
      const outcome = runJob(runtime, work, g.signal(), graceMs);
      void outcome.then(g.done);
      return outcome;
    },
    args: (outcomes) => orderedArgs(names, outcomes, runtime.metrics),
    stop: () => guard?.stop(),
  };
}
