// The continuous fetch / execute / ack loop of a tick. Slots are refilled as
// they free up: the next jobs are fetched while enough still wait for a slot
// to cover one round trip (the low-water mark: half a batch, more when round
// trips are slow — HTTP Redis — and jobs start fast), and finished jobs are
// acked in groups that ride on those fetches, so a slow job never holds the
// others' slots idle and a round trip is hidden behind running jobs. A
// second step may go while one is in flight, each in its lane
// (step-lanes.ts: a replay is only of its lane's last call,
// lib/tick/replay-call.lua), and their replies are taken in the order Redis
// ran them (run-order.ts): no call that records or clears a solo run goes
// beside another. Where each call is its own request (`lanes: "requests"`: HTTP), the
// second goes half a round trip after the first, so the next fetch's round
// trip overlaps the last one's. Over one connection (`lanes: "connection"`: TCP) it
// is written as soon as it is due, and waits queued at Redis: when Redis
// answers one step it runs the next while the tick reads the reply and runs
// its jobs, so neither waits for the other (bench/step-overlap.ts). Jobs
// that return at once send it as the fill that runs the last batch ends.
//
// Bounded: at most 2 batches fetched but not started, and at most a batch
// plus a round of slots finished but not acked. All of them sit in the tick's inproc lists,
// so a crash still loses nothing. A fetched job waits for a slot only about
// as long as the hold time (prefetch.ts): the tick fetches no more than its
// slots will start by then, and hands back, at the head of their queues,
// the jobs it holds once the oldest waited that long while no slot freed,
// so a tick busy with long jobs never keeps work another tick could run.
//
// Flow jobs: a job parked on a key this tick holds goes back to its queue
// when the tick acks the key's job. After the queues looked empty, a tick
// that met parked jobs still acks and fetches as its flow jobs finish, so
// a key drains at its limit within one tick, not one slot-full a tick.
//
// Fenced: no job starts unless the lease was confirmed within the lease time
// (lease.ts). When it cannot be confirmed the tick stops starting jobs; when
// it is found gone, `signal` aborts the running handlers.
//
// Alone: a job a dead tick left behind (`alone()`) starts only once no
// other job of the process runs (solo-gate.ts: a kill takes every tick of
// the process), after a step that records it as the tick's solo job
// (lib/tick/run-solo.lua), and no job of the process starts until a step
// clears that record after it finished. Should the process die, Redis
// knows the one job running.
//
// Generic over what it runs (W, fetched work) and what that becomes (O, an
// outcome for ack): plain jobs and ordered ids share the slots.
import { monotonicMs } from "./clock.js";
import type { Fence } from "./fence.js";
import type { Outcome } from "./passes/ack.js";
import type { FetchedJob } from "./passes/fetch.js";
import { HeldJobs } from "./held-jobs.js";
import type { TickLoad } from "./load.js";
import { newPrefetch, type Prefetch } from "./prefetch.js";
import type { SharedSlots, SlotHolder } from "./slots.js";
import { soloGate } from "./solo-gate.js";
import { RunOrder } from "./run-order.js";
import { StepLanes, type Lane, type LaneMode } from "./step-lanes.js";

export interface StepReply<W = FetchedJob, O = Outcome> {
  /** False when the lease was gone: nothing was fetched. */
  held: boolean;
  fetched: W[];
  /** More may wait though the fetch came back short (it stopped at its cap of flow jobs set aside). */
  more?: boolean;
  /** The fetch took all it asked for, yet nothing more is due: the queues are drained as by a short one. */
  drained?: boolean;
  /** Flow jobs wait parked on keys: acking a flow job may send one back to its queue. */
  parked?: boolean;
  /** Capped ordered ids it fetched left payloads behind their runs: their acks make those due. */
  behind?: boolean;
  /** Parked jobs the call's acks sent back to their queues. */
  sentOn?: number;
  /** The step's run number among its tick's lane steps (step.lua's `ran`): undefined over TCP and from older Lua. */
  ran?: number;
  /** Outcomes the step left unsettled, to ack again with the next (a group named by place it could not cut so). */
  resend?: O[];
}

export interface PipelineInput<W = FetchedJob, O = Outcome> {
  first: W[];
  /** The first fetch filled its batch: more may be waiting. */
  firstFull: boolean;
  /** The first fetch met flow jobs parked on keys (StepReply.parked). */
  firstParked?: boolean;
  /** The first fetch took capped ordered ids that left payloads behind their runs (StepReply.behind). */
  firstBehind?: boolean;
  batch: number;
  concurrency: number;
  /** The slots this pipeline shares with the other partitions' pipelines of its tick (slots.ts); default its own `concurrency`. */
  slots?: SharedSlots;
  fence: Fence;
  /** Aborts at the deadline or when the lease is lost. */
  signal: AbortSignal;
  /** After `signal` aborts, how long running handlers get to settle. */
  graceMs: number;
  /** The outcome as is when the work ended at once (a handler that returned: no promise made), else its promise. */
  run(job: W): O | Promise<O>;
  /** What a job whose run() rejected becomes: put back, as if interrupted. */
  interrupted(job: W): O;
  /** What a job handed back unstarted becomes: put back at the head of its queue, uncounted. */
  unstarted(job: W): O;
  /** Where a job stands in the queue order, lower first: shared slots go to the best held job of all pipelines. Default 0. */
  rank?(job: W): number;
  /** Whether acking this job may free a slot a parked job waits for (a flow job). */
  holdsSlot?(job: W): boolean;
  /**
   * Whether a job may start now ("start"), needs more budget than is left
   * ("later": no more fetches, a fresh tick will run it) or more than a
   * whole tick has ("never" here). Jobs not started go back as unstarted.
   */
  startable?(job: W): "start" | "later" | "never";
  /** Whether a job must run alone, its start recorded first (a dead tick left it behind). */
  alone?(job: W): boolean;
  /**
   * Whether two steps may be in flight at once, one in each lane (step-lanes.ts): "requests" when each
   * call is its own request (HTTP); "connection" on one connection (TCP), the second written as soon
   * as it is due and queued at Redis, which runs it as it answers the first; "one" (the default): not.
   */
  lanes?: LaneMode;
  /**
   * Acks `acks` and fetches up to `fetch` jobs (0: none). `solo`: the job
   * about to run alone, null to clear that record, undefined to leave it.
   * `load`: the jobs running and the jobs fetched not yet started as the
   * call goes out (stats() shows them apart). `lane`: the step's lane when
   * steps overlap (lib/tick/replay-call.lua), undefined when they do not.
   */
  step(acks: O[], fetch: number, solo: W | null | undefined, load: TickLoad, lane?: Lane): Promise<StepReply<W, O>>;
  /** Every outcome, as it happens. */
  onOutcome(outcome: O): void;
  /** Receives, once, how to read the tick's load at any moment (the lease's extends report it). */
  watchLoad?(read: () => TickLoad): void;
}

export interface PipelineResult<W = FetchedJob, O = Outcome> {
  /** Finished, not yet acked. */
  finished: O[];
  /** Fetched, never started. */
  unstarted: W[];
  /** Held back by startable(), in fetch order: they did not fit the budget left. */
  deferred: W[];
  /** Handlers still running after the grace period: left in inproc. */
  abandoned: number;
  /** Jobs handed back unstarted to their queues while the tick ran: its slots were busy. */
  handedBack: number;
  /** The last fetch came back short: the queues looked empty, the jobs it handed back included. */
  drained: boolean;
  /** A step that failed for good (Redis unreachable); its acks are back in `finished`. */
  failure?: unknown;
}

const POLL_MS = 100;

/** The pipeline's wake while nothing waits for it: one function for every tick. */
const noWaiter = (): void => {};

export function runPipeline<W, O>(p: PipelineInput<W, O>): Promise<PipelineResult<W, O>> {
  return new Pipeline(p).run();
}

/** The job running alone: recorded by its step (announcing), running, or done and not yet cleared. */
type Solo<W> = { job: W; state: "announcing" | "running" | "done" };

class Pipeline<W, O> {
  // Alone (one partition), the slots are the pipeline's own: none of the pool's bookkeeping runs.
  private readonly slots: SharedSlots | undefined;
  private readonly prefetch: Prefetch;
  private readonly buffer = new HeldJobs<W>();
  private readonly deferred: W[] = [];
  // A job waits for a tick with more budget left: fetch nothing more.
  private waiting = false;
  private finished: O[] = [];
  private running = 0;
  private startedCount = 0;
  private drained: boolean;
  // A fetch took capped ordered ids that left payloads behind their runs: once every job it runs has
  // settled, one step acks them all and takes those ids again (a step a batch, not a tick: begin and
  // finish a batch cost two round trips and the tick's fixed work). Kept until a step that acked
  // every job this tick held fetched none such: a later fetch that took other ids does not say
  // their rest is gone.
  private behind: boolean;
  private parked: boolean;
  // A flow job finished since the last fetch: its ack may send a parked job back.
  private slotFreed = false;
  // A step's acks sent parked jobs back, and no fetch came after it.
  private sentOnLeft = false;
  private handBack = false;
  private handedBack = 0;
  // Hand-backs so far: the queues look empty again only after a step whose acks carried them all
  // fetched short (a step acks before it fetches, step.lua). Until then the tick fetches them again
  // once a slot frees, unless another tick took them meanwhile.
  private handBacks = 0;
  // The steps in flight (one at a time unless p.lanes says two) and their lanes.
  private readonly lanes: StepLanes;
  // A step in flight records or clears a solo run: none goes beside it.
  private soloStep = false;
  // When steps overlap: their replies are taken in the order Redis ran them (run-order.ts), so the
  // jobs of the step that fetched first start first, whichever request answered first.
  private readonly order: RunOrder | undefined;
  // Due when a step may go beside the one in flight (step-lanes.ts).
  private besideTimer: ReturnType<typeof setTimeout> | undefined;
  // Held jobs looked overdue: asked again after the timers already due, which a stalled process (a
  // loaded host) has not run yet, so the slots freed meanwhile count (handBackIfOverdue).
  private overdueRecheck: ReturnType<typeof setTimeout> | undefined;
  private overdueRechecked = false;
  // When the process did not run (a loaded host): each span as its start and end, flat, on the
  // prefetch's clock, since the oldest held job was fetched. The hold counts none of it (holdFrom).
  private stalls: number[] = [];
  // The jobs the steps in flight ask for: counted as held, so other pipelines sharing the slots fetch less.
  private asking = 0;
  // Its last fetch was due and got less than a batch, for want of room in the slots.
  private short = false;
  private confirming = false;
  private closed = false;
  // p.signal.aborted, kept by its abort listener while the pipeline runs: a field read, where the
  // signal's getter costs a call each job starting (bench/client-instructions.ts counts the difference).
  private aborted = false;
  private failure: unknown;
  private wake = noWaiter;
  private solo: Solo<W> | undefined;
  // The process's solo runs: `me` is this pipeline's place in its line.
  private readonly gate = soloGate();
  private readonly me = {};
  // The solo job's handler has not settled (its record must stay, and the gate closed, until it has).
  private aloneRunning = false;
  // What this pipeline last told the pool it holds (SlotHolder.held): told again after each change.
  private heldShown = 0;
  // Jobs that finish together free their slots in one burst of microtasks: one fill after the
  // burst starts what they freed, where a fill a job scanned the pool's holders and offered their
  // room once a job (bench/client-instructions.ts counts the difference).
  private refilling = false;
  // While a fill starts jobs: the held count at which its step goes out before it starts the rest
  // (-1: none due). Jobs that settle at once never fill the slots, so a fill would run every held
  // job before its fetch went, and no round trip would overlap them (bench/plain-cost.ts).
  private stepAt = -1;
  // The last job started settled within its start (its handler returned at once): see lowWater().
  private atOnce = false;
  // Only over shared slots (partitions): alone, no holder and its seven functions are made a tick.
  private readonly holder: SlotHolder | undefined;

  constructor(private readonly p: PipelineInput<W, O>) {
    this.slots = p.slots;
    this.prefetch = p.slots?.prefetch ?? newPrefetch(p.concurrency);
    this.buffer.add(p.first, this.prefetch.now());
    this.aborted = p.signal.aborted;
    this.drained = !p.firstFull;
    this.parked = p.firstParked === true;
    this.behind = p.firstBehind === true;
    this.holder = p.slots ? this.slotHolder() : undefined;
    const mode = p.lanes ?? "one";
    this.lanes = new StepLanes(mode);
    this.order = mode === "one" ? undefined : new RunOrder();
    p.watchLoad?.(() => ({ running: this.running, waiting: this.buffer.length }));
  }

  async run(): Promise<PipelineResult<W, O>> {
    const { p, slots, holder, gate } = this;
    slots?.join(holder!);
    this.showHeld();
    const onAbort = () => {
      this.aborted = true;
      this.wake();
    };
    this.aborted = p.signal.aborted;
    p.signal.addEventListener("abort", onAbort);
    const unsubscribe = gate.subscribe(() => this.wake());
    await this.loop();
    this.closed = true;
    clearTimeout(this.besideTimer);
    clearTimeout(this.overdueRecheck);
    this.showHeld();
    // Handlers it gave up on (hung, ignoring their signal) still run: their slots stay taken until they settle.
    if (this.running === 0) slots?.leave(holder!);
    p.signal.removeEventListener("abort", onAbort);
    unsubscribe();
    // A handler its tick gave up on (hung, ignoring its signal) stops holding the
    // process's gate when its tick closes: else one hung handler, or a hung
    // suspect, would stall every tick of the process for good. The cost: a
    // later solo run may overlap it, and if it then kills the process, that
    // suspect is counted once for a death it did not cause.
    for (let left = this.running; left > 0; left--) gate.settled();
    gate.release(this.me);
    // Stopped with payloads left behind its capped runs: finish's acks make them due, work for a next tick.
    const empty = this.drained && !this.behind && !this.waiting && !this.sentOnLeft && this.buffer.length === 0;
    return {
      finished: this.finished,
      unstarted: this.buffer.takeAll(),
      deferred: this.deferred,
      abandoned: this.running,
      handedBack: this.handedBack,
      drained: empty,
      failure: this.failure,
    };
  }

  /** Turns until every job settled and nothing more is due, or the grace after an abort ran out. */
  private async loop(): Promise<void> {
    let abortedAt: number | undefined;
    this.fill();
    for (;;) {
      if (this.stopping()) abortedAt ??= monotonicMs();
      const idle = this.running === 0 && this.lanes.idle();
      if (idle && (this.stopping() || (((this.drained && !this.behind) || this.waiting) && this.buffer.length === 0)))
        break;
      if (abortedAt !== undefined && this.lanes.idle() && monotonicMs() - abortedAt >= this.p.graceMs) break;
      await this.pause();
      this.wake = noWaiter;
      this.fill();
      this.handBackIfOverdue();
    }
  }

  private showHeld(): void {
    if (!this.slots) return;
    const held = this.closed ? 0 : this.buffer.length + this.asking;
    this.slots.holding(held - this.heldShown);
    this.heldShown = held;
  }

  // Over HTTP (overlap) the lead covers the slowest round trip lately, not the mean: fetches still
  // bring a whole batch each (requests a job unchanged), sent earlier after a late one.
  private lowWater(): number {
    const { batch } = this.p;
    const overlap = this.p.lanes === "requests";
    // Jobs that settle within their start (a handler that returns at once) run every held job in the
    // fill that starts them, so their next fetch is due at once: it goes after the fill's first job,
    // and Redis works on it while the rest run. The lead waits for the rate the jobs reached, which the
    // wait for that very fetch holds down (a step went after half a batch on a loaded host, after a
    // tenth on a quiet one: bench/step-overlap.ts). Each fetch is still a whole batch. Over TCP, with a
    // step in flight, the next is due once the held jobs and that step's batch are a batch: as the
    // fill ends, so that no more than 2 batches are ever fetched and not started.
    if (this.atOnce && !overlap) return batch;
    return Math.max(Math.floor(batch / 2), Math.min(batch, this.prefetch.lead(overlap)));
  }

  private stopping(): boolean {
    // Once closed, the listener is gone: the signal itself says.
    return this.aborted || this.failure !== undefined || (this.closed && this.p.signal.aborted);
  }

  private send(fetch: number, marker: W | null | undefined, then: (held: boolean) => void): void {
    const acks = this.finished;
    this.finished = [];
    this.soloStep = marker !== undefined;
    this.asking += fetch;
    this.showHeld();
    this.handBack = false;
    if (fetch > 0) this.slotFreed = false;
    const handBacksSent = this.handBacks;
    // The round trip counts from just before the call; a step beside it waits half a round trip from
    // just after it, so a host that stalls the process inside the call never lets the two go closer.
    const sentAt = monotonicMs();
    // Every job this tick held is acked by this step, before its fetch (no other step in flight).
    const ackedAll = this.running === 0 && this.buffer.length === 0 && this.lanes.idle();
    const lane = this.lanes.take();
    const call = this.p.step(acks, fetch, marker, { running: this.running, waiting: this.buffer.length }, lane);
    this.lanes.sent(monotonicMs());
    const settled = () => {
      this.lanes.free(lane);
      if (marker !== undefined) this.soloStep = false;
      this.asking -= fetch;
      this.showHeld();
      this.fill();
      this.wake();
    };
    const took = (reply: StepReply<W, O>) => {
      try {
        // Before anything that may send the next step: they ride on it, or on finish.
        if (reply.resend) this.finished.push(...reply.resend);
        this.prefetch.stepTook(monotonicMs() - sentAt);
        this.buffer.add(reply.fetched, this.prefetch.now());
        this.showHeld();
        this.parked ||= reply.parked === true;
        if (fetch > 0) this.sentOnLeft = false;
        else if ((reply.sentOn ?? 0) > 0) this.sentOnLeft = true;
        if (!reply.held) this.drained = true;
        else if ((reply.fetched.length < fetch || reply.drained) && !reply.more)
          this.drained = handBacksSent === this.handBacks;
        else if (fetch > 0) this.drained = false;
        if (!reply.held) this.behind = false;
        else if (reply.behind) this.behind = true;
        else if (fetch > 0 && ackedAll) this.behind = false;
        if (this.slots && reply.fetched.length < fetch) this.slots.offer(this.holder!);
        then(reply.held);
      } finally {
        settled();
      }
    };
    const failed = (error: unknown) => {
      this.finished = acks.concat(this.finished);
      this.failure = error;
      this.solo = undefined;
      settled();
    };
    const { order } = this;
    if (order === undefined) {
      call.then(took, failed).catch(() => {});
      return;
    }
    // Taken in the order Redis ran the steps (run-order.ts): a failure releases a reply that waited for it.
    const sentNumber = order.sent();
    call
      .then(
        (reply) => order.answered(sentNumber, reply.ran, () => took(reply)),
        (error: unknown) => {
          try {
            failed(error);
          } finally {
            order.failed(sentNumber);
          }
        },
      )
      .catch(() => {});
  }

  private step(): void {
    if (!this.lanes.open() || this.soloStep || this.failure !== undefined) return;
    const { p, slots, buffer, asking } = this;
    // Beside a step in flight only a fetch goes (with what finished): no solo call, no hand-back.
    const beside = !this.lanes.idle();
    if (beside && (this.solo !== undefined || this.handBack)) return;
    const due =
      !this.stopping() &&
      !this.waiting &&
      this.gate.mayStart() &&
      (this.drained
        ? !beside && ((this.parked && this.slotFreed) || (this.behind && this.running === 0 && buffer.length === 0))
        : buffer.length + asking <= this.lowWater());
    const room = !due ? 0 : slots ? slots.room(this.holder!) : this.prefetch.room(this.running, buffer.length + asking);
    const fetch = Math.max(0, Math.min(p.batch, room));
    // Short of room (others hold the slots): a slot freed elsewhere prompts it (slots.offer).
    this.short = due && room < p.batch;
    // Acks alone go once a batch and a round of slots have finished, or
    // with jobs handed back; the last ones ride on finish. A solo job that
    // finished is cleared at once.
    const last = (this.drained || this.waiting) && buffer.length === 0 && this.running === 0;
    const clearing = this.solo?.state === "done";
    // The next suspect's record replaces the finished one's: one call each, not two.
    const next = clearing ? this.aloneNext() : undefined;
    if (next !== undefined) {
      this.announce(next);
      return;
    }
    if (!clearing && !this.handBack && fetch === 0 && (this.finished.length < p.batch + p.concurrency || last)) return;
    // Beside another, only a whole batch: requests per job stay those of one step at a time.
    if (beside && (fetch < p.batch || !this.besideNow())) return;
    this.send(fetch, clearing ? null : undefined, () => {
      if (clearing) this.solo = undefined;
    });
  }

  private start(job: W, alone = false): void {
    this.running++;
    this.slots?.ran(1);
    this.startedCount++;
    this.prefetch.started();
    this.gate.started();
    if (alone) this.aloneRunning = true;
    this.runOne(job, alone);
  }

  // Work that ended at once settles here, with no promise and no turn of microtasks; the rest in one
  // async call a job, not a closure for each of catch and then (bench/client-instructions.ts counts both).
  private runOne(job: W, alone: boolean): void {
    let outcome: O | Promise<O>;
    try {
      outcome = this.p.run(job);
    } catch {
      // run() never throws; were it to, the job goes back to its queue.
      outcome = this.p.interrupted(job);
    }
    if (outcome instanceof Promise) {
      this.atOnce = false;
      void this.awaitOne(job, outcome, alone);
    } else {
      this.atOnce = true;
      this.settle(job, outcome, alone);
    }
  }

  private async awaitOne(job: W, pending: Promise<O>, alone: boolean): Promise<void> {
    let outcome: O;
    try {
      outcome = await pending;
    } catch {
      // run() never rejects; were it to, the job goes back to its queue.
      outcome = this.p.interrupted(job);
    }
    this.settle(job, outcome, alone);
  }

  private settle(job: W, outcome: O, alone: boolean): void {
    this.running--;
    this.slots?.ran(-1);
    this.prefetch.freed();
    // After close, the tick has already taken it off the gate's count.
    if (!this.closed) this.gate.settled();
    if (alone) this.aloneRunning = false;
    if (this.solo?.job === job) this.solo.state = "done";
    // A handler its closed pipeline gave up on held its slot in the pool until now.
    if (this.closed && this.running === 0) this.slots?.leave(this.holder!);
    if (this.closed) {
      // No refill follows to fold its free into the rate (other pipelines may share it): now.
      this.prefetch.flush();
      return;
    }
    if (this.p.holdsSlot?.(job)) this.slotFreed = true;
    this.p.onOutcome(outcome);
    // A store at the length, not push(): `finished` is made anew each step, and an empty array holds
    // small integers until its first store. Optimized with both kinds seen, an inlined push checks the
    // value is one on that branch and deoptimized settle ("not a Smi", bench/drain-warmup.ts); a keyed
    // store turns the array's kind over instead.
    const { finished } = this;
    finished[finished.length] = outcome;
    this.refillSoon();
  }

  // Whether a step may go beside the one in flight now; if not yet, a fill is due when it may.
  private besideNow(): boolean {
    const wait = this.lanes.besideIn(monotonicMs(), this.prefetch.stepMs());
    if (wait <= 0) return true;
    this.besideTimer ??= setTimeout(() => {
      this.besideTimer = undefined;
      this.lanes.turnEnded();
      if (!this.closed) this.fill();
    }, Math.ceil(wait));
    return false;
  }

  private refillSoon(): void {
    if (this.refilling) return;
    this.refilling = true;
    queueMicrotask(() => {
      this.refilling = false;
      // The burst's freed slots, into the rate as one (prefetch.ts).
      this.prefetch.flush();
      if (this.closed) return;
      this.fill();
      this.slots?.offer(this.holder!);
      // The fill started what could start: the loop turns only when it may end or must stop.
      if (this.running === 0 || this.stopping()) this.wake();
    });
  }

  // Records `job` as the tick's solo job, then starts it: no other job runs.
  private announce(job: W): void {
    this.solo = { job, state: "announcing" };
    this.send(0, job, (held) => {
      if (!held || this.stopping()) {
        this.solo = undefined;
        return;
      }
      this.buffer.remove(job);
      this.showHeld();
      this.solo = { job, state: "running" };
      this.start(job, true);
    });
  }

  private confirm(): void {
    if (this.confirming) return;
    this.confirming = true;
    void this.p.fence.confirm().then(() => {
      this.confirming = false;
      this.fill();
      this.wake();
    });
  }

  // Starts, or sets aside, the job at the head of the buffer: false when it cannot now.
  private startNext(): boolean {
    const { p, buffer } = this;
    if (this.stopping() || buffer.length === 0 || this.solo !== undefined) return false;
    if (!p.fence.valid()) {
      this.confirm();
      return false;
    }
    const job = buffer.head()!;
    const when = p.startable?.(job) ?? "start";
    if (when !== "start") {
      buffer.shift();
      this.showHeld();
      this.deferred.push(job);
      this.waiting ||= when === "later";
      return true;
    }
    if (p.alone?.(job)) {
      // It waits, and the jobs behind it, until no job of the process runs.
      this.gate.want(this.me);
      if (this.running === 0 && this.lanes.idle() && this.gate.mayRunAlone(this.me)) this.announce(job);
      return false;
    }
    if (!this.gate.mayStart()) return false;
    buffer.shift();
    this.showHeld();
    this.start(job);
    if (buffer.length <= this.stepAt) {
      this.stepAt = -1;
      this.step();
    }
    return true;
  }

  /** This pipeline as the pool of shared slots sees it (slots.ts). */
  private slotHolder(): SlotHolder {
    // The holder's getters read the pipeline, not themselves.
    const pipe = this;
    return {
      get running() {
        return pipe.running;
      },
      get held() {
        return pipe.closed ? 0 : pipe.buffer.length + pipe.asking;
      },
      get started() {
        return pipe.startedCount;
      },
      get wants() {
        return !pipe.closed && !pipe.stopping() && !pipe.waiting && !pipe.drained;
      },
      get short() {
        return pipe.short;
      },
      rank: () => (pipe.closed || pipe.buffer.length === 0 ? Infinity : (pipe.p.rank?.(pipe.buffer.head()!) ?? 0)),
      since: () => pipe.buffer.headSince() ?? -Infinity,
      startNext: () => !pipe.closed && pipe.startNext(),
      wake: () => pipe.wake(),
      fetchIfDue: () => {
        if (!pipe.closed) pipe.step();
      },
    };
  }

  private fill(): void {
    this.stepAt = this.lanes.open() && !this.drained ? this.lowWater() - this.asking : -1;
    if (this.slots) this.slots.fill(this.holder!);
    else while (this.running < this.p.concurrency && this.startNext());
    this.stepAt = -1;
    this.leaveLineUnlessAlone();
    this.step();
  }

  // The job at the head, when it is a suspect that may be recorded and started now.
  private aloneNext(): W | undefined {
    const { p } = this;
    const job = this.buffer.head();
    if (job === undefined || this.stopping() || this.running > 0 || !p.alone?.(job) || !p.fence.valid())
      return undefined;
    if ((p.startable?.(job) ?? "start") !== "start" || !this.gate.mayRunAlone(this.me)) return undefined;
    return job;
  }

  // Out of the gate's line once no solo job is waiting, recorded or running here.
  private leaveLineUnlessAlone(): void {
    if (this.solo !== undefined || this.aloneRunning) return;
    if (!this.stopping() && this.buffer.length > 0 && this.p.alone?.(this.buffer.head()!)) return;
    this.gate.release(this.me);
  }

  // The jobs held waited the hold time while no job could start: back to
  // their queues. Not while a solo job is being recorded (it is still held).
  private handBackIfOverdue(): void {
    const { p, slots, buffer, prefetch } = this;
    // The recheck's answer holds for this pass only.
    const rechecked = this.overdueRechecked;
    this.overdueRechecked = false;
    if (this.stopping() || buffer.length === 0 || this.solo?.state === "announcing") return;
    // Held back by another tick's solo run, they go back; a suspect waiting for its solo run keeps its place.
    const free = slots ? slots.running() < slots.total : this.running < p.concurrency;
    if (free && this.solo === undefined && (this.gate.mayStart() || p.alone?.(buffer.head()!))) return;
    if (!prefetch.overdue(this.holdFrom())) {
      this.forgetOverdue();
      return;
    }
    // A step's reply can wake the loop before the timers of jobs that ended during a stall ran: their
    // slots count once those timers ran, so the hand back waits for one timer after them.
    if (!rechecked) {
      this.overdueRecheck ??= setTimeout(() => {
        this.overdueRecheck = undefined;
        this.overdueRechecked = true;
        this.wake();
      }, 1);
      return;
    }
    this.forgetOverdue();
    const jobs = buffer.takeAll();
    this.showHeld();
    this.finished.push(...jobs.map((job) => p.unstarted(job)));
    this.handedBack += jobs.length;
    this.handBacks++;
    this.drained = false;
    this.handBack = true;
    this.step();
  }

  private forgetOverdue(): void {
    clearTimeout(this.overdueRecheck);
    this.overdueRecheck = undefined;
  }

  // When the oldest held job's hold began, later by the time since its fetch that the process did
  // not run: no slot can free while the process stands still, and a job's end may take turns of the
  // loop past the stall (a failure's deflated backtrace waits on the thread pool), so that time is
  // no sign of busy slots. A stall is seen only from when a timer was due: a lower bound.
  private holdFrom(): number {
    const { stalls, prefetch } = this;
    const since = this.buffer.headSince();
    if (since === undefined) return prefetch.now();
    let stalled = 0;
    let kept = 0;
    for (let i = 0; i < stalls.length; i += 2) {
      const end = stalls[i + 1]!;
      // Held jobs are in fetch order, so a stall over before the oldest was fetched is of no later head.
      if (end <= since) continue;
      stalled += end - Math.max(stalls[i]!, since);
      stalls[kept++] = stalls[i]!;
      stalls[kept++] = end;
    }
    stalls.length = kept;
    return since + stalled;
  }

  // A pause's timer (or wake) that came later than its timer was due: the process did not run meanwhile.
  private resumed(due: number): void {
    const at = this.prefetch.now();
    if (at > due && this.buffer.length > 0) this.stalls.push(due, at);
  }

  // Sleeps until woken, the next poll, or the moment the oldest held job is due back.
  private pause(): Promise<void> {
    const { prefetch } = this;
    let ms = POLL_MS;
    if (this.buffer.length > 0)
      ms = Math.min(ms, Math.max(1, this.holdFrom() + prefetch.holdMs() - prefetch.now() + 1));
    const due = prefetch.now() + ms;
    return new Promise<void>((resolve) => {
      let woken = false;
      const end = () => {
        if (woken) return;
        woken = true;
        clearTimeout(timer);
        this.resumed(due);
        resolve();
      };
      const timer = setTimeout(end, ms);
      this.wake = end;
    });
  }
}
