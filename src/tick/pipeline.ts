// The continuous fetch / execute / ack loop of a tick. Slots are refilled as
// they free up: the next jobs are fetched while enough still wait for a slot
// to cover one round trip (the low-water mark: half a batch, more when round
// trips are slow — HTTP Redis — and jobs start fast), and finished jobs are
// acked in groups that ride on those fetches, so a slow job never holds the
// others' slots idle and a round trip is hidden behind running jobs. One
// step call is in flight at a time: calls keep their numbers in order
// (lib/tick/replay-call.lua).
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
import { newPrefetch } from "./prefetch.js";
import type { SharedSlots, SlotHolder } from "./slots.js";
import { soloGate } from "./solo-gate.js";

export interface StepReply<W = FetchedJob> {
  /** False when the lease was gone: nothing was fetched. */
  held: boolean;
  fetched: W[];
  /** More may wait though the fetch came back short (it stopped at its cap of flow jobs set aside). */
  more?: boolean;
  /** Flow jobs wait parked on keys: acking a flow job may send one back to its queue. */
  parked?: boolean;
  /** Parked jobs the call's acks sent back to their queues. */
  sentOn?: number;
}

export interface PipelineInput<W = FetchedJob, O = Outcome> {
  first: W[];
  /** The first fetch filled its batch: more may be waiting. */
  firstFull: boolean;
  /** The first fetch met flow jobs parked on keys (StepReply.parked). */
  firstParked?: boolean;
  batch: number;
  concurrency: number;
  /** The slots this pipeline shares with the other partitions' pipelines of its tick (slots.ts); default its own `concurrency`. */
  slots?: SharedSlots;
  fence: Fence;
  /** Aborts at the deadline or when the lease is lost. */
  signal: AbortSignal;
  /** After `signal` aborts, how long running handlers get to settle. */
  graceMs: number;
  run(job: W): Promise<O>;
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
   * Acks `acks` and fetches up to `fetch` jobs (0: none). `solo`: the job
   * about to run alone, null to clear that record, undefined to leave it.
   * `load`: the jobs running and the jobs fetched not yet started as the
   * call goes out (stats() shows them apart).
   */
  step(acks: O[], fetch: number, solo: W | null | undefined, load: TickLoad): Promise<StepReply<W>>;
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

export async function runPipeline<W, O>(p: PipelineInput<W, O>): Promise<PipelineResult<W, O>> {
  // Alone (one partition), the slots are the pipeline's own: none of the pool's bookkeeping runs.
  const slots = p.slots;
  const prefetch = slots?.prefetch ?? newPrefetch(p.concurrency);
  const buffer = new HeldJobs<W>();
  buffer.add(p.first, prefetch.now());
  const deferred: W[] = [];
  // A job waits for a tick with more budget left: fetch nothing more.
  let waiting = false;
  let finished: O[] = [];
  let running = 0;
  let startedCount = 0;
  let drained = !p.firstFull;
  let parked = p.firstParked === true;
  // A flow job finished since the last fetch: its ack may send a parked job back.
  let slotFreed = false;
  // A step's acks sent parked jobs back, and no fetch came after it.
  let sentOnLeft = false;
  let handBack = false;
  let handedBack = 0;
  // Hand-backs so far: the queues look empty again only after a step whose acks carried them all
  // fetched short (a step acks before it fetches, step.lua). Until then the tick fetches them again
  // once a slot frees, unless another tick took them meanwhile.
  let handBacks = 0;
  let stepping = false;
  // The jobs the step in flight asks for: counted as held, so other pipelines sharing the slots fetch less.
  let asking = 0;
  // Its last fetch was due and got less than a batch, for want of room in the slots.
  let short = false;
  let confirming = false;
  let closed = false;
  let failure: unknown;
  let abortedAt: number | undefined;
  let wake = () => {};
  // The job running alone: recorded by its step (announcing), running, or done and not yet cleared.
  let solo: { job: W; state: "announcing" | "running" | "done" } | undefined;
  // The process's solo runs: `me` is this pipeline's place in its line.
  const gate = soloGate();
  const me = {};
  // The solo job's handler has not settled (its record must stay, and the gate closed, until it has).
  let aloneRunning = false;
  p.watchLoad?.(() => ({ running, waiting: buffer.length }));
  // What this pipeline last told the pool it holds (SlotHolder.held): told again after each change.
  let heldShown = 0;
  const showHeld = () => {
    if (!slots) return;
    const held = closed ? 0 : buffer.length + asking;
    slots.holding(held - heldShown);
    heldShown = held;
  };
  const lowWater = () => Math.max(Math.floor(p.batch / 2), Math.min(p.batch, prefetch.lead()));
  const stopping = () => p.signal.aborted || failure !== undefined;

  const send = (fetch: number, marker: W | null | undefined, then: (held: boolean) => void) => {
    const acks = finished;
    finished = [];
    stepping = true;
    asking = fetch;
    showHeld();
    handBack = false;
    if (fetch > 0) slotFreed = false;
    const sentAt = monotonicMs();
    const handBacksSent = handBacks;
    p.step(acks, fetch, marker, { running, waiting: buffer.length })
      .then(
        (reply) => {
          prefetch.stepTook(monotonicMs() - sentAt);
          buffer.add(reply.fetched, prefetch.now());
          showHeld();
          parked ||= reply.parked === true;
          if (fetch > 0) sentOnLeft = false;
          else if ((reply.sentOn ?? 0) > 0) sentOnLeft = true;
          if (!reply.held) drained = true;
          else if (reply.fetched.length < fetch && !reply.more) drained = handBacksSent === handBacks;
          else if (fetch > 0) drained = false;
          if (slots && reply.fetched.length < fetch) slots.offer(holder);
          then(reply.held);
        },
        (error: unknown) => {
          finished = acks.concat(finished);
          failure = error;
          solo = undefined;
        },
      )
      .finally(() => {
        stepping = false;
        asking = 0;
        showHeld();
        fill();
        wake();
      });
  };

  const step = () => {
    if (stepping || failure !== undefined) return;
    const due =
      !stopping() && !waiting && gate.mayStart() && (drained ? parked && slotFreed : buffer.length <= lowWater());
    const room = !due ? 0 : slots ? slots.room(holder) : prefetch.room(running, buffer.length);
    const fetch = Math.max(0, Math.min(p.batch, room));
    // Short of room (others hold the slots): a slot freed elsewhere prompts it (slots.offer).
    short = due && room < p.batch;
    // Acks alone go once a batch and a round of slots have finished, or
    // with jobs handed back; the last ones ride on finish. A solo job that
    // finished is cleared at once.
    const last = (drained || waiting) && buffer.length === 0 && running === 0;
    const clearing = solo?.state === "done";
    // The next suspect's record replaces the finished one's: one call each, not two.
    const next = clearing ? aloneNext() : undefined;
    if (next !== undefined) return announce(next);
    if (!clearing && !handBack && fetch === 0 && (finished.length < p.batch + p.concurrency || last)) return;
    send(fetch, clearing ? null : undefined, () => {
      if (clearing) solo = undefined;
    });
  };

  const start = (job: W, alone = false) => {
    running++;
    slots?.ran(1);
    startedCount++;
    prefetch.started();
    gate.started();
    if (alone) aloneRunning = true;
    // run() never rejects; were it to, the job goes back to its queue.
    const settled = p.run(job).catch(() => p.interrupted(job));
    void settled.then((outcome) => {
      running--;
      slots?.ran(-1);
      prefetch.freed();
      // After close, the tick has already taken it off the gate's count.
      if (!closed) gate.settled();
      if (alone) aloneRunning = false;
      if (solo?.job === job) solo.state = "done";
      // A handler its closed pipeline gave up on held its slot in the pool until now.
      if (closed && running === 0) slots?.leave(holder);
      if (closed) return;
      if (p.holdsSlot?.(job)) slotFreed = true;
      p.onOutcome(outcome);
      finished.push(outcome);
      refillSoon();
    });
  };

  // Jobs that finish together free their slots in one burst of microtasks: one fill after the
  // burst starts what they freed, where a fill a job scanned the pool's holders and offered their
  // room once a job (bench/client-instructions.ts counts the difference).
  let refilling = false;
  const refillSoon = () => {
    if (refilling) return;
    refilling = true;
    queueMicrotask(() => {
      refilling = false;
      if (closed) return;
      fill();
      slots?.offer(holder);
      // The fill started what could start: the loop turns only when it may end or must stop.
      if (running === 0 || stopping()) wake();
    });
  };

  // Records `job` as the tick's solo job, then starts it: no other job runs.
  const announce = (job: W) => {
    solo = { job, state: "announcing" };
    send(0, job, (held) => {
      if (!held || stopping()) {
        solo = undefined;
        return;
      }
      buffer.remove(job);
      showHeld();
      solo = { job, state: "running" };
      start(job, true);
    });
  };

  const confirm = () => {
    if (confirming) return;
    confirming = true;
    void p.fence.confirm().then(() => {
      confirming = false;
      fill();
      wake();
    });
  };

  // Starts, or sets aside, the job at the head of the buffer: false when it cannot now.
  const startNext = (): boolean => {
    if (stopping() || buffer.length === 0 || solo !== undefined) return false;
    if (!p.fence.valid()) {
      confirm();
      return false;
    }
    const job = buffer.head()!;
    const when = p.startable?.(job) ?? "start";
    if (when !== "start") {
      buffer.shift();
      showHeld();
      deferred.push(job);
      waiting ||= when === "later";
      return true;
    }
    if (p.alone?.(job)) {
      // It waits, and the jobs behind it, until no job of the process runs.
      gate.want(me);
      if (running === 0 && !stepping && gate.mayRunAlone(me)) announce(job);
      return false;
    }
    if (!gate.mayStart()) return false;
    buffer.shift();
    showHeld();
    start(job);
    return true;
  };

  const holder: SlotHolder = {
    get running() {
      return running;
    },
    get held() {
      return closed ? 0 : buffer.length + asking;
    },
    get started() {
      return startedCount;
    },
    get wants() {
      return !closed && !stopping() && !waiting && !drained;
    },
    get short() {
      return short;
    },
    rank: () => (closed || buffer.length === 0 ? Infinity : (p.rank?.(buffer.head()!) ?? 0)),
    since: () => buffer.headSince() ?? -Infinity,
    startNext: () => !closed && startNext(),
    wake: () => wake(),
    fetchIfDue: () => {
      if (!closed) step();
    },
  };
  slots?.join(holder);
  showHeld();

  const fill = () => {
    if (slots) slots.fill(holder);
    else while (running < p.concurrency && startNext());
    leaveLineUnlessAlone();
    step();
  };

  // The job at the head, when it is a suspect that may be recorded and started now.
  const aloneNext = (): W | undefined => {
    const job = buffer.head();
    if (job === undefined || stopping() || running > 0 || !p.alone?.(job) || !p.fence.valid()) return undefined;
    if ((p.startable?.(job) ?? "start") !== "start" || !gate.mayRunAlone(me)) return undefined;
    return job;
  };

  // Out of the gate's line once no solo job is waiting, recorded or running here.
  const leaveLineUnlessAlone = () => {
    if (solo !== undefined || aloneRunning) return;
    if (!stopping() && buffer.length > 0 && p.alone?.(buffer.head()!)) return;
    gate.release(me);
  };

  // The jobs held waited the hold time while no job could start: back to
  // their queues. Not while a solo job is being recorded (it is still held).
  const handBackIfOverdue = () => {
    if (stopping() || buffer.length === 0 || solo?.state === "announcing") return;
    // Held back by another tick's solo run, they go back; a suspect waiting for its solo run keeps its place.
    const free = slots ? slots.running() < slots.total : running < p.concurrency;
    if (free && solo === undefined && (gate.mayStart() || p.alone?.(buffer.head()!))) return;
    if (!prefetch.overdue(buffer.headSince() ?? prefetch.now())) return;
    const jobs = buffer.takeAll();
    showHeld();
    finished.push(...jobs.map((job) => p.unstarted(job)));
    handedBack += jobs.length;
    handBacks++;
    drained = false;
    handBack = true;
    step();
  };

  // Sleeps until woken, the next poll, or the moment the oldest held job is due back.
  const pause = () => {
    let ms = POLL_MS;
    const oldest = buffer.headSince();
    if (oldest !== undefined) ms = Math.min(ms, Math.max(1, oldest + prefetch.holdMs() - prefetch.now() + 1));
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  };

  const onAbort = () => wake();
  p.signal.addEventListener("abort", onAbort);
  const unsubscribe = gate.subscribe(() => wake());
  fill();
  for (;;) {
    if (stopping()) abortedAt ??= monotonicMs();
    const idle = running === 0 && !stepping;
    if (idle && (stopping() || ((drained || waiting) && buffer.length === 0))) break;
    if (abortedAt !== undefined && !stepping && monotonicMs() - abortedAt >= p.graceMs) break;
    await pause();
    wake = () => {};
    fill();
    handBackIfOverdue();
  }
  closed = true;
  showHeld();
  // Handlers it gave up on (hung, ignoring their signal) still run: their slots stay taken until they settle.
  if (running === 0) slots?.leave(holder);
  p.signal.removeEventListener("abort", onAbort);
  unsubscribe();
  // A handler its tick gave up on (hung, ignoring its signal) stops holding the
  // process's gate when its tick closes: else one hung handler, or a hung
  // suspect, would stall every tick of the process for good. The cost: a
  // later solo run may overlap it, and if it then kills the process, that
  // suspect is counted once for a death it did not cause.
  for (let left = running; left > 0; left--) gate.settled();
  gate.release(me);
  const empty = drained && !waiting && !sentOnLeft && buffer.length === 0;
  return { finished, unstarted: buffer.takeAll(), deferred, abandoned: running, handedBack, drained: empty, failure };
}
