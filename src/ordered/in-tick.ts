// Ordered ids in a tick (tick/capability.ts): a lane of their own in the
// tick's slots, the ordered section that ends begin, step and finish, and
// the guard that aborts exclusive handlers before their lease can expire
// (guard.ts). The guard serves flow jobs holding a slot too (src/flow/):
// they are exclusive the same way, and one guard per tick counts them all.
// With no ordered job declared and no flow job run it adds no argument, no
// timer and no Redis work.
import type { Capability, JobHooks, Lane, TickContext, TickOutcome, TickPart } from "../tick/capability.js";
import type { FetchedJob } from "../tick/passes/fetch.js";
import type { OrderedRuntime } from "./runtime.js";
import { orderedCancelKey } from "../cancel/errors.js";
import { runEvent } from "./cancel-record.js";
import { runOrdered } from "./execute.js";
import { orderedWireNames } from "./registry.js";
import { isLeaseInDoubt, LEASE_DOUBTS_MAX, leaseDoubtsError, orderedGuard, type OrderedGuard } from "./guard.js";
import {
  isOrdered,
  isOrderedOutcome,
  orderedArgs,
  readOrderedFetched,
  type OrderedFetched,
  type OrderedOutcome,
} from "./work.js";

export const orderedCapability = (runtime: OrderedRuntime): Capability => ({
  name: "ordered",
  forTick(tick) {
    // "NAME CAP" for a name with maxPayloads: its fetch takes at most CAP payloads an id.
    const names = orderedWireNames(runtime.ordered);
    // Made for the first execution that needs it: an ordered id, or a flow
    // job holding a slot (src/flow/), exclusive only while the lease lives.
    let guard: OrderedGuard | undefined;
    const doubted = (running: number) =>
      runtime.logger.warn(
        `tickq: lease not confirmed within ${tick.leaseMs} ms (Redis slow?): ${running} exclusive run(s) stopped, to run again`,
      );
    let ctx: TickContext | undefined;
    const guarded = () => (guard ??= orderedGuard(ctx!.fence, tick.signal, tick.leaseMs, doubted));
    const args = (acked?: TickOutcome[]) => ({
      ordered: orderedArgs(names, acked as OrderedOutcome[], runtime.metrics),
    });
    const lane: Lane<OrderedFetched, OrderedOutcome> = {
      owns: isOrdered,
      ownsOutcome: isOrderedOutcome,
      run(work) {
        const g = guarded();
        return runOrdered(runtime, work, g.signal(), g.done);
      },
      interrupted: (item) => ({ kind: "interrupted", item }),
      unstarted: (item) => ({ kind: "unstarted", item }),
      // An ordered id competes with the first queue.
      rank: 0,
      soloMarker: (item) => `o${item.name} ${item.id}`,
    };
    const settled = (acked: TickOutcome[], cancelled: string[] | undefined) => {
      const runs = acked as OrderedOutcome[];
      cancelledEvents(ctx!, runs, cancelled);
      forgetCancels(runtime, runs);
      recountOrdered(ctx!, runs, cancelled);
    };
    const part: TickPart = {
      lane: lane as unknown as Lane,
      job: guardedJobs,
      started: (t) => void (ctx = t),
      beginArgs: () => args(),
      begun: (reply) => readOrderedFetched(reply.ordered),
      stepArgs: args,
      stepped(reply, acked) {
        settled(acked, reply.orderedCancelled);
        return readOrderedFetched(reply.ordered);
      },
      finishArgs: args,
      finished(reply, acked) {
        // Ordered ids whose arrivals waited behind a run: the next tick has them.
        if ((reply.orderedReady ?? 0) > 0) ctx!.report.more = true;
        settled(acked, reply.orderedCancelled);
      },
      // Only a flow job holding a slot is guarded.
      wrapsPlain: isFlowJob,
      runPlain(job, run, signal) {
        if (job.flowFence === undefined) return run(signal);
        const g = guarded();
        // runJob never rejects; counting it done on the side keeps its outcome one hop nearer the ack.
        const outcome = run(g.signal());
        void outcome.then(g.done);
        return outcome;
      },
      stop: () => guard?.stop(),
    };
    return part;
  },
});

// One function for every tick, not a closure each: the tick calls it for every plain job, and a new
// tick's closure there made V8 throw that call's optimized code away (bench/drain-warmup.ts, traced).
const isFlowJob = (job: FetchedJob) => job.flowFence !== undefined;

/**
 * A plain run the guard stopped (a flow job holding a slot, runPlain below) goes back, counted in its
 * `doubts`, until the LEASE_DOUBTS_MAX-th stop, which fails the attempt.
 */
const guardedJobs: JobHooks = {
  aborted(reason, job) {
    if (!isLeaseInDoubt(reason)) return undefined;
    return job.doubts + 1 < LEASE_DOUBTS_MAX ? "doubt" : leaseDoubtsError(reason);
  },
};

/** A `cancelled` event for each run an ack settled as cancelled ("NAME FENCE": a cancel came first). */
function cancelledEvents(ctx: TickContext, acked: OrderedOutcome[], settled: string[] | undefined): void {
  if (!settled || settled.length === 0 || !ctx.events.listening("cancelled")) return;
  const runs = new Map(acked.map((o) => [`${o.item.name} ${o.item.fence}`, o.item]));
  for (const key of settled) {
    const item = runs.get(key);
    if (item) ctx.events.emit("cancelled", runEvent(item));
  }
}

/** Acked runs are forgotten by the process's cancel watch (it knows only what is still held). */
function forgetCancels(runtime: OrderedRuntime, runs: OrderedOutcome[]): void {
  if (!runtime.cancels.any()) return;
  for (const { item } of runs) runtime.cancels.forget(orderedCancelKey(item.name, item.fence, item.id));
}

/** Runs Redis settled as cancelled ("NAME FENCE": a cancel came first) count as cancelled, not as what their run said. */
function recountOrdered(ctx: TickContext, acked: OrderedOutcome[], settled: string[] | undefined): void {
  if (settled === undefined || settled.length === 0) return;
  const keys = new Set(settled);
  for (const o of acked) if (keys.has(`${o.item.name} ${o.item.fence}`)) ctx.countCancelledInstead(o);
}
