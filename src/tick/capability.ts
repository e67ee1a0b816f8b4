// The seam between the tick core and what plugs into it. A tick is one
// shared begin call, steps, and one finish (plus housekeeping and extends):
// a capability (ordered ids, flow control, workflows, recurring jobs, Sidekiq
// interop, cancels, expiry) never adds a round trip of its own to a job or a
// step, it adds sections to those calls and reads its fields of their
// replies. What it declares here, per tick (`forTick`):
//
// - its sections of begin, step, finish and extend, and the KEYS it adds;
// - what it fetched (a `Lane`: work of its own kind that shares the slots
//   with plain jobs, and how to run it, put it back and mark it solo);
// - what it acks (its lane's outcomes go to its step and finish sections);
// - how it wraps a plain job's run, reads a plain fetch, or frees a slot;
// - what it adds to every plain job's run (`job`: a cancel's signal,
//   ctx.progress, the run's measures, a failure's backtrace, its own aborts);
// - what it sends with every extend and learns from its reply;
// - its housekeeping beside the pipeline (`beside`, workflows' pass);
// - its report counts, and when it leaves work for the next tick (`more`).
//
// `createTickq` lists the capabilities in use (src/capabilities.ts); tick/
// composes whatever it is given (parts.ts) and names none of them.
import type { Fence } from "./fence.js";
import type { TickCalls, TickKeys } from "./numbered.js";
import type { TickEvents } from "./events.js";
import type { AckTrailers, Outcome } from "./passes/ack.js";
import type { FetchedGroups, FetchedJob } from "./passes/fetch.js";
import type * as protocol from "../protocol/index.js";
import type { JobPayload } from "../job/payload.js";
import type { TickReport } from "./tick-report.js";

type TypesOf<C> = C extends { types?: infer T } ? NonNullable<T> : never;
type ArgsOfCall<C> = TypesOf<C> extends { args: infer A } ? A : never;
type ReplyOfCall<C> = TypesOf<C> extends { reply: infer R } ? R : never;

export type BeginArgs = ArgsOfCall<typeof protocol.begin>;
export type Begun = ReplyOfCall<typeof protocol.begin>;
export type StepArgs = ArgsOfCall<typeof protocol.step>;
export type Stepped = ReplyOfCall<typeof protocol.step>;
export type FinishArgs = ArgsOfCall<typeof protocol.finish>;
export type Finished = ReplyOfCall<typeof protocol.finish>;
export type ExtendArgs = ArgsOfCall<typeof protocol.extend>;
export type Extended = ReplyOfCall<typeof protocol.extend>;
/** The flow part of a fetch's reply (src/protocol/sections.ts `flowPart`). */
export type FlowPart = Begun["flow"];

/** What the pipeline holds: any work that can be resurrected and must then run alone. */
export interface TickWork {
  /** A dead tick left it behind, maybe running: it runs alone (lib/tick/run-solo.lua). */
  readonly suspect: boolean;
  /** How many times its tick died while it ran. */
  readonly resurrections: number;
}

/** How a run ended, as the report counts it (plain jobs and every lane share these kinds). */
export type OutcomeKind =
  | "succeeded"
  | "retry"
  | "dead"
  | "discarded"
  | "unstarted"
  | "interrupted"
  | "inDoubt"
  | "cancelled";

export interface TickOutcome {
  readonly kind: OutcomeKind;
  /** A dead run whose handler failed (not poison, not malformed): counted as failed too. */
  readonly handlerFailed?: boolean;
}

/** Whether a job may start now, waits for a tick with more budget, or never fits a tick. */
export type Startable = "start" | "later" | "never";

/** A plain fetch as read: the jobs, and what the flow part says of the queues behind them. */
export interface FetchRead {
  jobs: FetchedJob[];
  /** The fetch stopped at its cap of jobs set aside: more may wait though it came back short. */
  capped: boolean;
  /** Jobs wait parked on keys: acking one may send one back. */
  parked: boolean;
}

/** Work of a capability's own kind, run in the tick's slots beside plain jobs. */
export interface Lane<W extends TickWork = TickWork, O extends TickOutcome = TickOutcome> {
  /** This lane's work (told apart from plain jobs and other lanes' by its shape). */
  owns(work: TickWork): work is W;
  ownsOutcome(outcome: TickOutcome): outcome is O;
  /** Runs it: the outcome as is when the run ended at once (no promise, no turn of microtasks), else its promise; never throws, never rejects. */
  run(work: W): O | Promise<O>;
  /** What a run that rejected becomes: put back, as if interrupted. */
  interrupted(work: W): O;
  /** What work handed back unstarted becomes. */
  unstarted(work: W): O;
  /** Its place in strict queue order, lower first (0: with the first queue). */
  readonly rank: number;
  /** The solo marker of a step that records it as the tick's solo run (lib/tick/run-solo.lua). */
  soloMarker(work: W): string;
}

/** The tick as a capability sees it once begin is sent. */
export interface TickContext {
  readonly tickId: string;
  readonly leaseMs: number;
  readonly graceMs: number;
  readonly batch: number;
  readonly concurrency: number;
  readonly budgetMs: number;
  /** When the tick started (monotonic ms). */
  readonly startedAt: number;
  readonly scheduleLimit: number;
  /** Aborts at the deadline or when the lease is lost. */
  readonly signal: AbortSignal;
  readonly calls: TickCalls;
  readonly fence: Fence;
  readonly report: TickReport;
  readonly events: TickEvents;
  /** Reads a plain fetch of a reply (with the flow part when a capability reads it). */
  readFetched(groups: FetchedGroups, flow: FlowPart): FetchRead;
  /** The lease is gone: abort, report it. */
  lost(): void;
  /** The pipeline has ended (the last plain job settled). */
  pipelineDone(): boolean;
  /** Takes back a counted outcome and counts it as cancelled (Redis settled it cancelled). */
  countCancelledInstead(outcome: TickOutcome): void;
}

/**
 * What a capability adds to every plain job's run (passes/execute.ts), composed once per tick: each
 * hook belongs to one capability (a hook two parts give: the later wins). None given: the run goes
 * without it (never cancelled, ctx.progress does nothing, no measures, no backtrace).
 */
export interface JobHooks {
  /** Whether the job is known cancelled: checked before it starts and once it ended (cancel). */
  cancelled?(jid: string): boolean;
  /** The job's own signal, made when its handler first reads ctx.signal: aborts with `parent` or on a cancel. */
  signalFor?(jid: string, parent: AbortSignal): AbortSignal;
  /** The run whose signal `signalFor` made ended. */
  ended?(jid: string): void;
  /** ctx.progress (results): throws for a value it cannot carry. */
  progress?(jid: string, value: unknown): void;
  /**
   * Notes on `outcome` the measures of a run started at `startedMono` (monotonic ms), `endedMono` when it
   * threw (metrics); answers the outcome.
   */
  meter?(payload: JobPayload, startedMono: number, outcome: Outcome, endedMono?: number): Outcome;
  /** Fields a failed run adds to the job beside retry's (the Sidekiq backtrace); none: undefined. */
  failureFields?(payload: JobPayload, error: unknown): Promise<Record<string, unknown> | undefined>;
  /**
   * A run stopped by an abort of the part's own making (ordered's guard: a lease in doubt): "doubt" puts it
   * back, counted in its `doubts`; an Error fails the attempt with it; undefined: not its abort.
   */
  aborted?(reason: unknown, job: FetchedJob): "doubt" | Error | undefined;
}

/** What the tick tells a capability as it starts, before any call. */
export interface TickStart {
  readonly tickId: string;
  readonly concurrency: number;
  /** Jobs fetched per round trip (the tick's `batch`). */
  readonly batch: number;
  readonly leaseMs: number;
  readonly graceMs: number;
  readonly signal: AbortSignal;
}

/** A capability's part in one tick; every member is optional. */
export interface TickPart {
  /** KEYS it adds to every tick call and extend. */
  readonly keys?: Partial<TickKeys>;
  /** Its sections of begin. */
  beginArgs?(tick: TickContext): Partial<BeginArgs>;
  /** begin's reply, once the lease is confirmed: the work it fetched (after plain jobs and earlier parts'). */
  begun?(reply: Begun, tick: TickContext, room: number): Promise<TickWork[] | undefined> | TickWork[] | undefined;
  /** After `begun`: whether it made work due that begin's fetch could not see (jobs it enqueued). */
  madeDue?(): boolean;
  /** Its lane, when it fetches work of its own kind. */
  readonly lane?: Lane;
  /** Its sections of a step; `acked`: its lane's outcomes this step acks. */
  stepArgs?(acked: TickOutcome[]): Partial<StepArgs>;
  /** A step's reply: the work it fetched. `acked`: its lane's outcomes, `plain`: the plain ones. */
  stepped?(reply: Stepped, acked: TickOutcome[], plain: Outcome[]): TickWork[] | undefined;
  /** Its sections of finish. */
  finishArgs?(acked: TickOutcome[]): Partial<FinishArgs>;
  /** finish's reply. */
  finished?(reply: Finished, acked: TickOutcome[], plain: Outcome[]): Promise<void> | void;
  /** Trailers of the plain acks' others (results, metrics), in every step and finish. */
  ackTrailers?(outcomes: Outcome[], inAckOrder: Outcome[], others: number): Partial<AckTrailers>;
  /** Its sections of every extend (the lease's). */
  extendArgs?(): Partial<ExtendArgs>;
  /** An extend answered (`reply`, the lease still held and the tick not stopped) or failed (undefined): what it sent is settled or put back. */
  extended?(reply: Extended | undefined): void;
  /** After an extend answered: whether another must go at once (what the part heard meanwhile waits for one). */
  extendAgain?(): boolean;
  /** What it adds to every plain job's run. */
  readonly job?: JobHooks;
  /** Wraps a plain job's run (outermost first); `run` takes the signal the handler gets. */
  runPlain?(job: FetchedJob, run: (signal: AbortSignal) => Promise<Outcome>, signal: AbortSignal): Promise<Outcome>;
  /**
   * Whether runPlain does anything for this job (default: yes). A job no part wraps runs with no
   * closure made for it (bench/client-instructions.ts counts the difference).
   */
  wrapsPlain?(job: FetchedJob): boolean;
  /** Reads plain fetches (the flow part): at most one part. */
  readFetched?(groups: FetchedGroups, flow: FlowPart): FetchRead;
  /** Whether acking this plain job may free a slot a parked job waits for. */
  holdsSlot?(job: FetchedJob): boolean;
  /** Work beside the pipeline, started once begin is read and awaited when the pipeline ends. */
  beside?(tick: TickContext, begun: Begun): Promise<void>;
  /** After the pipeline and `beside`: whether it left work for the next tick. */
  more?(): boolean;
  /** The lease was confirmed at begin: start what runs while the tick does. */
  started?(tick: TickContext): void;
  /** Stops its timers before finish (again in the end: idempotent). */
  stop?(): void;
  /** Last, whatever happened (finish failed or not): settle what is left, write its report fields. */
  end?(report: TickReport): Promise<void> | void;
}

/** Something that plugs into the tick, made for one runtime (src/capabilities.ts). */
export interface Capability {
  /** For logs and the docs: "ordered", "workflows", ... */
  readonly name: string;
  /** Its part in a tick; undefined: it adds nothing to this one. */
  forTick(tick: TickStart): TickPart | undefined;
}
