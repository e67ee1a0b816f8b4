// A tick as it opens: its settings, report, deadline, capabilities' parts,
// numbered calls, lease fence and events, in one place for run.ts's phases;
// `close` stops what it started, whatever happened.
import type { Capability, TickContext, TickOutcome, TickWork } from "./capability.js";
import { callPatienceMs, tickCalls } from "./calls.js";
import type { TickCalls } from "./numbered.js";
import { monotonicMs } from "./clock.js";
import { tickEvents, type TickEvents } from "./events.js";
import type { Fence } from "./fence.js";
import { fenceLease } from "./lease.js";
import type { TickLoad } from "./load.js";
import { ackArgs, type AckArgs, type AckTrailers, type Outcome } from "./passes/ack.js";
import { nameJobsByRefOf } from "./passes/ack-refs.js";
import type { HousekeepLimits } from "./passes/housekeep.js";
import { tickParts, type TickParts } from "./parts.js";
import { countCancelledInstead, newReport } from "./report.js";
import type { Runtime } from "./runtime.js";
import { tickSettings, type TickSettings } from "./settings.js";
import { UnstartableSeen } from "./unstartable.js";
import type { RoundTrips } from "../redis/adapter.js";
import type { TickOptions } from "./options.js";
import type { GivenUpStep } from "./given-up-step.js";
import type { TickReport } from "./tick-report.js";

export interface OpenTick {
  readonly runtime: Runtime;
  readonly tickId: string;
  readonly settings: TickSettings;
  readonly limits: HousekeepLimits;
  readonly startedAt: number;
  readonly report: TickReport;
  readonly parts: TickParts;
  readonly calls: TickCalls;
  readonly fence: Fence;
  readonly events: TickEvents;
  readonly unstartable: UnstartableSeen;
  readonly ctx: TickContext;
  readonly signal: AbortSignal;
  /** The arguments every begin, step and finish starts with. */
  readonly common: { tickId: string; leaseMs: number; deadMaxSize: number; deadMaxAgeSec: number };
  pipelineDone: boolean;
  /** Steps sent and given up for want of an answer, in send order: sent once more before finish (given-up.ts). */
  readonly givenUp: GivenUpStep[];
  /** The pipeline's load once it runs; before, nothing is reported. */
  readLoad: () => TickLoad | undefined;
  /** The lease is gone: abort, report it. */
  lost(): void;
  abort(reason: unknown): void;
  /**
   * The plain acks part of a call, large jobs named by reference. `step`: a step's, whose whole
   * fetched groups may go named by place alone (ack.ts ackArgs); finish's never are.
   */
  acks(plain: Outcome[], step?: boolean): AckArgs | Promise<AckArgs>;
  /**
   * Queues a step answered a group of as not cut by place alone (ack.ts unplaced): their acks go by
   * text from then on (the counts disagree until the list is empty at a fetch: each group would go twice).
   */
  readonly placeDoubted: Set<string>;
  /** What work handed back unstarted becomes. */
  unstartedOf(work: TickWork): TickOutcome;
  close(): Promise<void>;
}

/** The capabilities a runtime's ticks compose (createTickq sets them; none: plain jobs alone). */
export function capabilitiesOf(runtime: Runtime): readonly Capability[] {
  return runtime.capabilities ?? [];
}

export function openTick(runtime: Runtime, options: TickOptions, tickId: string): OpenTick {
  const settings = tickSettings(options);
  const { budgetMs, leaseMs, graceMs, concurrency } = settings;
  const startedAt = monotonicMs();
  const trips: RoundTrips = { count: 0 };
  const report = newReport(tickId);
  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(new Error("tick deadline reached")), budgetMs);
  const signal = controller.signal;
  const lost = () => {
    report.leaseLost = true;
    controller.abort(new Error("tick lease lost"));
  };
  const parts = tickParts(capabilitiesOf(runtime), {
    tickId,
    concurrency,
    batch: settings.batch,
    leaseMs,
    graceMs,
    signal,
  });
  const calls = tickCalls(
    runtime,
    { ticks: runtime.keys.ticks, lease: runtime.keys.lease(tickId), ...parts.keys },
    trips,
    callPatienceMs(runtime, leaseMs),
  );
  const t: OpenTick = {
    runtime,
    tickId,
    settings,
    limits: { resurrectLimit: settings.resurrectLimit, scheduleLimit: settings.scheduleLimit, lockMs: leaseMs },
    startedAt,
    report,
    parts,
    calls,
    fence: fenceLease(runtime, {
      tickId,
      leaseMs,
      trips,
      onLost: lost,
      keys: parts.keys,
      extendArgs: () => parts.merged((part) => part.extendArgs?.()),
      extended: (reply) => parts.extended(reply),
      extendAgain: () => parts.extendAgain(),
      load: () => t.readLoad(),
      cancelCheckMs: settings.cancelCheckMs,
    }),
    events: tickEvents(runtime.listeners, runtime.logs),
    unstartable: new UnstartableSeen(budgetMs),
    ctx: undefined as unknown as TickContext,
    signal,
    common: { tickId, leaseMs, deadMaxSize: runtime.deadMaxJobs, deadMaxAgeSec: runtime.deadMaxAgeSeconds },
    pipelineDone: false,
    givenUp: [],
    readLoad: () => undefined,
    lost,
    abort: (reason) => controller.abort(reason),
    placeDoubted: new Set(),
    acks(plain, step) {
      const naming = nameJobsByRefOf(plain);
      const args = () =>
        ackArgs(
          plain,
          (outcomes, inAckOrder, others) =>
            parts.merged<AckTrailers>((part) => part.ackTrailers?.(outcomes, inAckOrder, others)),
          step ? t.placeDoubted : undefined,
        );
      return naming ? naming.then(args) : args();
    },
    unstartedOf: (work) => parts.laneOf(work)?.unstarted(work) ?? { kind: "unstarted", job: work },
    async close() {
      for (const part of parts.list) await part.end?.(report);
      clearTimeout(deadline);
      t.fence.stop();
      parts.stop();
      await t.events.flush(Math.max(graceMs, 5_000));
      report.roundTrips = trips.count;
      report.durationMs = Math.round(monotonicMs() - startedAt);
    },
  };
  (t as { ctx: TickContext }).ctx = contextOf(t);
  return t;
}

function contextOf(t: OpenTick): TickContext {
  const { settings } = t;
  return {
    tickId: t.tickId,
    leaseMs: settings.leaseMs,
    graceMs: settings.graceMs,
    batch: settings.batch,
    concurrency: settings.concurrency,
    budgetMs: settings.budgetMs,
    startedAt: t.startedAt,
    scheduleLimit: settings.scheduleLimit,
    signal: t.signal,
    calls: t.calls,
    fence: t.fence,
    report: t.report,
    events: t.events,
    readFetched: (groups, flow) => t.parts.readFetched(groups, flow),
    lost: () => t.lost(),
    pipelineDone: () => t.pipelineDone,
    countCancelledInstead: (o) => countCancelledInstead(t.report, o),
  };
}
