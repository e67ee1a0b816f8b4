// A tick as it opens: its settings, report, deadline, capabilities' parts,
// numbered calls, lease fence and events, in one place for run.ts's phases;
// `close` stops what it started, whatever happened.
import type {
  Capability,
  ExtendArgs,
  Extended,
  FetchRead,
  FlowPart,
  TickContext,
  TickOutcome,
  TickWork,
} from "./capability.js";
import { callPatienceMs, tickCalls } from "./calls.js";
import type { TickCalls } from "./numbered.js";
import { monotonicMs } from "./clock.js";
import { tickEvents, type TickEvents } from "./events.js";
import type { Fence } from "./fence.js";
import { fenceLease, type FenceTick } from "./lease.js";
import type { TickLoad } from "./load.js";
import { ackArgs, type AckArgs, type AckTrailers, type Outcome } from "./passes/ack.js";
import { nameJobsByRefOf } from "./passes/ack-refs.js";
import type { FetchedGroups, FetchedJob } from "./passes/fetch.js";
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
  return new Tick(runtime, options, tickId);
}

const noLoad = (): TickLoad | undefined => undefined;

function deadlineReached(controller: AbortController): void {
  controller.abort(new Error("tick deadline reached"));
}

// A class whose methods every tick shares, its fence and context reading it (FenceTick, TickContextOf) and
// its deadline given its controller as the timer's argument: a tick makes its objects and no closure,
// where the literal and its fence's options made fifteen (bench/ordered-instructions.ts).
class Tick implements OpenTick, FenceTick {
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
  readonly common: OpenTick["common"];
  pipelineDone = false;
  readonly givenUp: GivenUpStep[] = [];
  readLoad: () => TickLoad | undefined = noLoad;
  readonly placeDoubted = new Set<string>();
  private readonly trips: RoundTrips = { count: 0 };
  private readonly controller = new AbortController();
  private readonly deadline: ReturnType<typeof setTimeout>;

  constructor(
    readonly runtime: Runtime,
    options: TickOptions,
    readonly tickId: string,
  ) {
    const settings = tickSettings(options);
    const { budgetMs, leaseMs, graceMs, concurrency } = settings;
    this.settings = settings;
    this.startedAt = monotonicMs();
    this.report = newReport(tickId);
    this.deadline = setTimeout(deadlineReached, budgetMs, this.controller);
    this.signal = this.controller.signal;
    const parts = tickParts(capabilitiesOf(runtime), {
      tickId,
      concurrency,
      batch: settings.batch,
      leaseMs,
      graceMs,
      signal: this.signal,
    });
    this.parts = parts;
    this.calls = tickCalls(
      runtime,
      { ticks: runtime.keys.ticks, lease: runtime.keys.lease(tickId), ...parts.keys },
      this.trips,
      callPatienceMs(runtime, leaseMs),
    );
    this.limits = { resurrectLimit: settings.resurrectLimit, scheduleLimit: settings.scheduleLimit, lockMs: leaseMs };
    this.fence = fenceLease(runtime, {
      tickId,
      leaseMs,
      trips: this.trips,
      tick: this,
      keys: parts.keys,
      cancelCheckMs: settings.cancelCheckMs,
    });
    this.events = tickEvents(runtime.listeners, runtime.logs);
    this.unstartable = new UnstartableSeen(budgetMs);
    this.common = { tickId, leaseMs, deadMaxSize: runtime.deadMaxJobs, deadMaxAgeSec: runtime.deadMaxAgeSeconds };
    this.ctx = new TickContextOf(this);
  }

  lost(): void {
    this.report.leaseLost = true;
    this.controller.abort(new Error("tick lease lost"));
  }

  abort(reason: unknown): void {
    this.controller.abort(reason);
  }

  // What the fence asks of the tick (FenceTick).
  extendArgs(): Partial<ExtendArgs> {
    return this.parts.merged((part) => part.extendArgs?.());
  }

  extended(reply: Extended | undefined): void {
    this.parts.extended(reply);
  }

  extendAgain(): boolean {
    return this.parts.extendAgain();
  }

  load(): TickLoad | undefined {
    return this.readLoad();
  }

  acks(plain: Outcome[], step?: boolean): AckArgs | Promise<AckArgs> {
    const naming = nameJobsByRefOf(plain);
    if (naming) return naming.then(() => this.ackArgs(plain, step));
    return this.ackArgs(plain, step);
  }

  private ackArgs(plain: Outcome[], step: boolean | undefined): AckArgs {
    const { parts } = this;
    return ackArgs(
      plain,
      (outcomes, inAckOrder, others) =>
        parts.merged<AckTrailers>((part) => part.ackTrailers?.(outcomes, inAckOrder, others)),
      step ? this.placeDoubted : undefined,
    );
  }

  unstartedOf(work: TickWork): TickOutcome {
    const lane = this.parts.laneOf(work);
    if (lane) return lane.unstarted(work);
    const plain: Outcome = { kind: "unstarted", job: work as FetchedJob };
    return plain;
  }

  async close(): Promise<void> {
    const { parts, report } = this;
    for (const part of parts.list) {
      const ended = part.end?.(report);
      if (ended instanceof Promise) await ended;
    }
    clearTimeout(this.deadline);
    this.fence.stop();
    parts.stop();
    await this.events.flush(Math.max(this.settings.graceMs, 5_000));
    report.roundTrips = this.trips.count;
    report.durationMs = Math.round(monotonicMs() - this.startedAt);
  }
}

/** The tick as its capabilities see it (TickContext): the tick's own fields, its methods calling the tick's. */
class TickContextOf implements TickContext {
  readonly tickId: string;
  readonly leaseMs: number;
  readonly graceMs: number;
  readonly batch: number;
  readonly concurrency: number;
  readonly budgetMs: number;
  readonly startedAt: number;
  readonly scheduleLimit: number;
  readonly signal: AbortSignal;
  readonly calls: TickCalls;
  readonly fence: Fence;
  readonly report: TickReport;
  readonly events: TickEvents;

  constructor(private readonly t: Tick) {
    const { settings } = t;
    this.tickId = t.tickId;
    this.leaseMs = settings.leaseMs;
    this.graceMs = settings.graceMs;
    this.batch = settings.batch;
    this.concurrency = settings.concurrency;
    this.budgetMs = settings.budgetMs;
    this.startedAt = t.startedAt;
    this.scheduleLimit = settings.scheduleLimit;
    this.signal = t.signal;
    this.calls = t.calls;
    this.fence = t.fence;
    this.report = t.report;
    this.events = t.events;
  }

  readFetched(groups: FetchedGroups, flow: FlowPart): FetchRead {
    return this.t.parts.readFetched(groups, flow);
  }

  lost(): void {
    this.t.lost();
  }

  pipelineDone(): boolean {
    return this.t.pipelineDone;
  }

  countCancelledInstead(outcome: TickOutcome): void {
    countCancelledInstead(this.t.report, outcome);
  }
}
