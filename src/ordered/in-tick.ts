// Ordered ids in a tick (tick/capability.ts): a lane of their own in the
// tick's slots, the ordered section that ends begin, step and finish, and
// the guard that aborts exclusive handlers before their lease can expire
// (guard.ts). The guard serves flow jobs holding a slot too (src/flow/):
// they are exclusive the same way, and one guard per tick counts them all.
// With no ordered job declared and no flow job run it adds no argument, no
// timer and no Redis work.
import type {
  Begun,
  Capability,
  Finished,
  JobHooks,
  Lane,
  Stepped,
  TickContext,
  TickOutcome,
  TickPart,
  TickStart,
  TickWork,
} from "../tick/capability.js";
import type { Outcome } from "../tick/passes/ack.js";
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
  type OrderedArgs,
  type OrderedFetched,
  type OrderedOutcome,
} from "./work.js";

export const orderedCapability = (runtime: OrderedRuntime): Capability => ({
  name: "ordered",
  forTick: (tick) => new OrderedPart(runtime, tick),
});

// A class, its own lane: a tick makes one object and no closure (under tsx each closure is also
// named with Object.defineProperty), where the part's object literal, its lane and their closures
// were fourteen functions a tick (bench/ordered-instructions.ts).
class OrderedPart implements TickPart, Lane<OrderedFetched, OrderedOutcome> {
  readonly lane: Lane;
  readonly job = guardedJobs;
  // An ordered id competes with the first queue.
  readonly rank = 0;
  // "NAME CAP" for a name with maxPayloads: its fetch takes at most CAP payloads an id.
  private readonly names: string[];
  private ctx: TickContext | undefined = undefined;
  // Made for the first execution that needs it: an ordered id, or a flow
  // job holding a slot (src/flow/), exclusive only while the lease lives.
  private guard: OrderedGuard | undefined = undefined;

  constructor(
    private readonly runtime: OrderedRuntime,
    private readonly tick: TickStart,
  ) {
    this.names = orderedWireNames(runtime.ordered);
    this.lane = this as unknown as Lane;
  }

  private guarded(): OrderedGuard {
    if (this.guard === undefined) {
      const { runtime, tick } = this;
      const doubted = (running: number) =>
        runtime.logger.warn(
          `tickq: lease not confirmed within ${tick.leaseMs} ms (Redis slow?): ${running} exclusive run(s) stopped, to run again`,
        );
      this.guard = orderedGuard(this.ctx!.fence, tick.signal, tick.leaseMs, doubted);
    }
    return this.guard;
  }

  private args(acked?: TickOutcome[]): { ordered: OrderedArgs | undefined } {
    return { ordered: orderedArgs(this.names, acked as OrderedOutcome[], this.runtime.metrics) };
  }

  private settled(acked: TickOutcome[], cancelled: string[] | undefined): void {
    const runs = acked as OrderedOutcome[];
    cancelledEvents(this.ctx!, runs, cancelled);
    forgetCancels(this.runtime, runs);
    recountOrdered(this.ctx!, runs, cancelled);
  }

  // The lane.
  owns(work: TickWork): work is OrderedFetched {
    return isOrdered(work);
  }
  ownsOutcome(outcome: TickOutcome): outcome is OrderedOutcome {
    return isOrderedOutcome(outcome);
  }
  run(work: OrderedFetched): OrderedOutcome | Promise<OrderedOutcome> {
    const guard = this.guarded();
    return runOrdered(this.runtime, work, guard.start(), guard.done);
  }
  interrupted(item: OrderedFetched): OrderedOutcome {
    return { kind: "interrupted", item };
  }
  unstarted(item: OrderedFetched): OrderedOutcome {
    return { kind: "unstarted", item };
  }
  soloMarker(item: OrderedFetched): string {
    return `o${item.name} ${item.id}`;
  }

  // The part.
  started(t: TickContext): void {
    this.ctx = t;
  }
  beginArgs() {
    return this.args();
  }
  begun(reply: Begun): OrderedFetched[] {
    return readOrderedFetched(reply.ordered);
  }
  stepArgs(acked: TickOutcome[]) {
    return this.args(acked);
  }
  stepped(reply: Stepped, acked: TickOutcome[]): OrderedFetched[] {
    this.settled(acked, reply.orderedCancelled);
    return readOrderedFetched(reply.ordered);
  }
  finishArgs(acked: TickOutcome[]) {
    return this.args(acked);
  }
  finished(reply: Finished, acked: TickOutcome[]): void {
    // Ordered ids whose arrivals waited behind a run: the next tick has them.
    if ((reply.orderedReady ?? 0) > 0) this.ctx!.report.more = true;
    this.settled(acked, reply.orderedCancelled);
  }
  // Only a flow job holding a slot is guarded.
  wrapsPlain(job: FetchedJob): boolean {
    return isFlowJob(job);
  }
  runPlain(job: FetchedJob, run: (signal: AbortSignal) => Promise<Outcome>, signal: AbortSignal): Promise<Outcome> {
    if (job.flowFence === undefined) return run(signal);
    const g = this.guarded();
    // runJob never rejects; counting it done on the side keeps its outcome one hop nearer the ack.
    const outcome = run(g.signal());
    void outcome.then(g.done);
    return outcome;
  }
  stop(): void {
    this.guard?.stop();
  }
}

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
