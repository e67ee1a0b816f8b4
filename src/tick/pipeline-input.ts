// What run.ts hands the pipeline: how to run, rank, hold and mark each kind
// of work (plain jobs here, the rest by their capability's lane), and the
// step call that acks and fetches. Work is told apart by lane, never by
// name: a capability that adds a lane adds nothing here.
import type { TickOutcome, TickWork } from "./capability.js";
import { monotonicMs } from "./clock.js";
import type { TickLoad } from "./load.js";
import type { OpenTick } from "./open.js";
import { nameJobsByRef } from "./passes/ack-refs.js";
import { runJob, runJobNow } from "./passes/execute.js";
import type { Outcome } from "./passes/ack.js";
import type { FetchedJob } from "./passes/fetch.js";
import { budgetCheck } from "./passes/start-budget.js";
import type { PipelineInput, StepReply } from "./pipeline.js";
import type { Lane as StepLane } from "./step-lanes.js";
import { fetchArgs, strictRank } from "./queue-order.js";
import { transient } from "./calls.js";
import { takeStep } from "./step-reply.js";
import * as protocol from "../protocol/index.js";
import type { StepArgs } from "./capability.js";
import { SHARED_SLOTS, type TickOptionsWithSlots } from "./slots.js";
import type { TickOptions } from "./options.js";
import { tally } from "./report.js";

type Input = PipelineInput<TickWork, TickOutcome>;

export function pipelineInput(
  t: OpenTick,
  options: TickOptions,
  first: TickWork[],
  firstFull: boolean,
  firstParked: boolean,
  firstBehind: boolean,
): Input {
  return new PlainInput(t, options, first, firstFull, firstParked, firstBehind);
}

// A class, not an object of closures made each tick: the pipeline calls run, holdsSlot, alone and
// onOutcome once a job, and a tick's new closures threw away the optimized code that had inlined the
// last tick's ("wrong call target", bench/drain-warmup.ts). The prototype's methods are the same for
// every tick, and every tick's input has one shape (all fields set, in one order).
class PlainInput implements Input {
  readonly first: TickWork[];
  readonly firstFull: boolean;
  readonly firstParked: boolean;
  readonly firstBehind: boolean;
  readonly batch: number;
  readonly concurrency: number;
  readonly slots: TickOptionsWithSlots[typeof SHARED_SLOTS];
  readonly fence: OpenTick["fence"];
  readonly signal: AbortSignal;
  readonly graceMs: number;
  // Each call its own request (HTTP): the next fetch's round trip overlaps the last one's. One
  // connection (TCP): the next step waits queued at Redis while the tick runs the last one's jobs.
  readonly lanes: Input["lanes"];
  private readonly t: OpenTick;
  private readonly check: ReturnType<typeof budgetCheck>;
  private readonly queueRank: ReturnType<typeof strictRank>;

  constructor(
    t: OpenTick,
    options: TickOptions,
    first: TickWork[],
    firstFull: boolean,
    firstParked: boolean,
    firstBehind: boolean,
  ) {
    const { runtime, settings } = t;
    this.first = first;
    this.firstFull = firstFull;
    this.firstParked = firstParked;
    this.firstBehind = firstBehind;
    this.batch = settings.batch;
    this.concurrency = settings.concurrency;
    this.slots = (options as TickOptionsWithSlots)[SHARED_SLOTS];
    this.fence = t.fence;
    this.signal = t.signal;
    this.graceMs = settings.graceMs;
    this.lanes = runtime.redis.separateRequests === true ? "requests" : "connection";
    this.t = t;
    this.check = budgetCheck(runtime, t.startedAt + settings.budgetMs, settings.budgetMs, t.unstartable);
    this.queueRank = strictRank(runtime.plan);
  }

  // Casts, not a function called a job to make them: each small function the per-job path calls is
  // one more that V8 compiles once it is hot (bench/client-instructions.ts).
  run(work: TickWork): TickOutcome | Promise<TickOutcome> {
    const { t } = this;
    const { parts } = t;
    const lane = parts.hasLanes ? parts.laneOf(work) : undefined;
    if (lane) return lane.run(work);
    // A job no part wraps (most): no closure for it, and no promise when its handler returns at once
    // (bench/client-instructions.ts counts the difference).
    if (!parts.wrapsPlain(work as FetchedJob))
      return runJobNow(t.runtime, work as FetchedJob, t.signal, this.graceMs, parts.job);
    const { graceMs } = this;
    return parts.runPlain(
      work as FetchedJob,
      (signal) => runJob(t.runtime, work as FetchedJob, signal, graceMs, parts.job),
      t.signal,
    );
  }

  interrupted(work: TickWork): TickOutcome {
    const lane = this.t.parts.laneOf(work);
    if (lane) return lane.interrupted(work);
    const outcome: Outcome = { kind: "interrupted", job: work as FetchedJob };
    return outcome;
  }

  unstarted(work: TickWork): TickOutcome {
    return this.t.unstartedOf(work);
  }

  holdsSlot(work: TickWork): boolean {
    const { parts } = this.t;
    return parts.laneOf(work) === undefined && parts.holdsSlot(work as FetchedJob);
  }

  // A lane's work competes with the queue its rank names; with no strict order every job ranks 0.
  rank(work: TickWork): number {
    const { queueRank } = this;
    if (queueRank === undefined) return 0;
    return this.t.parts.laneOf(work)?.rank ?? queueRank((work as FetchedJob).queue);
  }

  // The budget check reads plain jobs' timeoutMs; a lane's work always starts.
  startable(work: TickWork): "start" | "later" | "never" {
    const { check } = this;
    if (check === undefined || this.t.parts.laneOf(work)) return "start";
    return check(work as FetchedJob);
  }

  // A job at its poison limit goes dead without running: no need to run it alone.
  alone(work: TickWork): boolean {
    return (work.suspect || work.resurrections > 0) && work.resurrections < this.t.runtime.maxResurrections;
  }

  step(
    acks: TickOutcome[],
    fetch: number,
    solo: TickWork | null | undefined,
    load: TickLoad,
    lane?: StepLane,
  ): Promise<StepReply<TickWork, TickOutcome>> {
    return step(this.t, acks, fetch, solo, load, lane);
  }

  onOutcome(outcome: TickOutcome): void {
    const { t } = this;
    tally(t.report, outcome);
    t.unstartable.outcome(outcome);
  }

  watchLoad(read: () => TickLoad): void {
    this.t.readLoad = read;
  }
}

/** A step call: acks what finished, fetches up to `fetch`, records or clears the solo run. */
async function step(
  t: OpenTick,
  acks: TickOutcome[],
  fetch: number,
  solo: TickWork | null | undefined,
  load: TickLoad,
  lane: StepLane | undefined,
): Promise<StepReply<TickWork, TickOutcome>> {
  const { runtime, parts } = t;
  const sent = monotonicMs();
  const { plain, byPart } = parts.split(acks);
  let args: StepArgs | undefined;
  try {
    // A solo job named by reference (large, or read with U+FFFD) is recorded by it too (lib/tick/run-solo.lua).
    if (solo && !parts.laneOf(solo)) await nameJobsByRef([solo as FetchedJob]);
    // One object, filled in the order the spreads had it, not a copy of each part's sections and of
    // the common fields a step (bench/client-instructions.ts).
    args = parts.merged((part, k) => part.stepArgs?.(byPart[k]!)) as StepArgs;
    const { common } = t;
    args.tickId = common.tickId;
    args.leaseMs = common.leaseMs;
    args.deadMaxSize = common.deadMaxSize;
    args.deadMaxAgeSec = common.deadMaxAgeSec;
    args.call = numbered(t, t.calls.next(), solo, load, lane);
    // No await unless a job must be named by reference: the call is written before the fill that
    // sent it runs the rest of its jobs, and Redis works on it meanwhile (bench/step-overlap.ts).
    const acked = t.acks(plain, true);
    args.acks = acked instanceof Promise ? await acked : acked;
    args.fetch = fetchArgs(runtime.plan, fetch);
    const stepped = await t.calls.send(protocol.step, args);
    return takeStep(t, stepped, { args, plain, byPart, sent });
  } catch (error) {
    // Sent, and given up for want of an answer: Redis may still run it (given-up.ts).
    if (args?.fetch !== undefined && transient(error)) t.givenUp.push({ args, acks, plain, byPart, sent, error });
    t.abort(error);
    throw error;
  }
}

/**
 * A step's call header (lib/tick/run-solo.lua): its number, its lane when
 * steps overlap, and the tick's load ("seq[lane]/running/waiting"), then
 * the solo marker: none leaves the tick's solo record, "-" clears it, else
 * the work to record.
 */
function numbered(
  t: OpenTick,
  seq: number,
  solo: TickWork | null | undefined,
  load: TickLoad,
  stepLane: StepLane | undefined,
): string {
  const head = `${seq}${stepLane ?? ""}/${load.running}/${load.waiting}`;
  if (solo === undefined) return head;
  if (solo === null) return `${head} -`;
  const lane = t.parts.laneOf(solo);
  if (lane) return `${head} ${lane.soloMarker(solo)}`;
  const job = solo as FetchedJob;
  return `${head} p${job.ref ?? job.raw}`;
}
