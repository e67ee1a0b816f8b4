// One tick: begin (lease, resurrect, schedule, fetch) → the pipeline
// (execute, with steps that ack, extend and fetch) → finish (ack, requeue,
// unregister). A tick killed at any line loses nothing: its fetched jobs sit
// in its inproc lists until acked, and once its lease expires the next
// tick's resurrect pass puts them back. Every call is numbered and resent
// unchanged on transient errors (calls.ts), so a replay is harmless.
import { recentSummary } from "./recent.js";
import { TickqError } from "../errors.js";
import { monotonicMs } from "./clock.js";
import { tickEvents, type TickEvents } from "./events.js";
import { newJid } from "../job/codec.js";
import { fenceLease } from "./lease.js";
import { orderedInTick } from "../ordered/in-tick.js";
import {
  interruptedOf,
  isOrdered,
  type OrderedOutcome,
  readOrderedFetched,
  splitOutcomes,
  unstartedOf,
  type Work,
  type WorkOutcome,
} from "../ordered/work.js";
import { ackArgs, ackOrder, type Outcome } from "./passes/ack.js";
import { orderedCancelKey } from "../cancel/errors.js";
import { nameLargeJobs } from "./passes/ack-refs.js";
import { takeProgress } from "../results/progress.js";
import { readFetchedFenced } from "../flow/fences.js";
import { budgetCheck } from "./passes/start-budget.js";
import { housekeepArgs, readHousekeep, type HousekeepLimits } from "./passes/housekeep.js";
import type { TickLoad } from "./load.js";
import { runPipeline, type StepReply } from "./pipeline.js";
import { fetchArgs, strictRank, type QueuePlan } from "./queue-order.js";
import type { RoundTrips } from "../redis/adapter.js";
import { learnClock, learnEvictionPolicy, redisNowMs, redisNowSec, type Runtime } from "./runtime.js";
import { recurringDueArgs, runRecurring } from "../recurring/pass.js";
import { workflowBeginArgs, workflowPassOf, workflowTickReport } from "../workflows/in-tick.js";
import type { WorkflowPassReport } from "../workflows/pass.js";
import * as protocol from "../protocol/index.js";
import { TickBeats } from "../sidekiq/process.js";
import { tickCalls } from "./calls.js";
import { UnstartableSeen } from "./unstartable.js";
import { tickSettings } from "./settings.js";
import type { TickOptions } from "./options.js";
import type { TickReport } from "../types.js";
import { SHARED_SLOTS, type TickOptionsWithSlots } from "./slots.js";

/** Share of the budget that extra housekeeping calls may use. */
const HOUSEKEEP_SHARE = 0.25;

/** `tickId`: one reserved for this tick (src/kick/parallel.ts); default a new one. */
export function runTick(
  runtime: Runtime,
  options: TickOptions = {},
  tickId = newJid().slice(0, 16),
): Promise<TickReport> {
  if (!runtime.tracing) return tickOnce(runtime, options, tickId);
  return runtime.tracing.tick(tickId, () => tickOnce(runtime, options, tickId), tickAttributes);
}

async function tickOnce(runtime: Runtime, options: TickOptions, tickId: string): Promise<TickReport> {
  const { budgetMs, batch, concurrency, leaseMs, graceMs, resurrectLimit, scheduleLimit, cancelCheckMs } =
    tickSettings(options);
  const limits: HousekeepLimits = { resurrectLimit, scheduleLimit, lockMs: leaseMs };
  const started = monotonicMs();
  const trips: RoundTrips = { count: 0 };
  const report: TickReport = {
    tickId,
    fetched: 0,
    succeeded: 0,
    failed: 0,
    retried: 0,
    dead: 0,
    resurrected: 0,
    scheduled: 0,
    requeued: 0,
    abandoned: 0,
    deadEvicted: 0,
    more: false,
    leaseLost: false,
    roundTrips: 0,
    durationMs: 0,
    recurring: 0,
    discarded: 0,
    expired: 0,
    cancelled: 0,
  };
  const { keys, plan } = runtime;
  // As a Sidekiq process: three more KEYS on every call, a beat section in begin, step, finish and extend.
  const beats =
    runtime.sidekiq &&
    new TickBeats(runtime.sidekiq, runtime.prefix, { tickId, concurrency, plan, nowSec: () => redisNowSec(runtime) });
  const calls = tickCalls(
    runtime,
    { ticks: keys.ticks, lease: keys.lease(tickId), process: beats?.keys },
    trips,
    Math.min(leaseMs, runtime.redisTimeoutMs, 5_000),
  );
  const common = { tickId, leaseMs, deadMaxSize: runtime.deadMaxJobs, deadMaxAgeSec: runtime.deadMaxAgeSeconds };

  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(new Error("tick deadline reached")), budgetMs);
  const lost = () => {
    report.leaseLost = true;
    controller.abort(new Error("tick lease lost"));
  };
  // The pipeline's load once it runs; before, nothing is reported.
  let readLoad: () => TickLoad | undefined = () => undefined;
  const fence = fenceLease(runtime, {
    tickId,
    leaseMs,
    trips,
    onLost: lost,
    beats,
    load: () => readLoad(),
    cancelCheckMs,
  });
  const work = orderedInTick(runtime, fence, controller.signal, leaseMs, graceMs);
  let pipelineDone = false;
  let flowed: WorkflowPassReport | undefined;
  const events = tickEvents(runtime.listeners, runtime.logs);
  const unstartable = new UnstartableSeen(budgetMs);

  try {
    const registration = `${Math.round(redisNowMs(runtime))} ${leaseMs} ${plan.names.join(" ")}`;
    const sentAt = monotonicMs();
    const begun = await calls.send(protocol.begin, {
      ...common,
      registration,
      housekeep: housekeepArgs(limits),
      askPolicy: runtime.evictionPolicy === undefined,
      recurring: recurringDueArgs(runtime.recurring, scheduleLimit),
      workflows: workflowBeginArgs(runtime, concurrency),
      info: beats?.info(),
      fetch: fetchArgs(plan, batch),
      ordered: work.args(),
    });
    if (begun.testClock !== undefined && !runtime.virtualClock) throw virtualClockRefused(runtime.prefix);
    const housekept = readHousekeep(begun);
    learnClock(runtime, housekept.nowMs);
    learnEvictionPolicy(runtime, begun.policy);
    report.resurrected += housekept.resurrected;
    report.scheduled += housekept.scheduled;
    if (!begun.leaseHeld) {
      lost();
      return report;
    }
    fence.confirmed(sentAt);
    beats?.start(() => void fence.confirm());
    noteExpired(report, events, begun.expired);
    const firstPlain = readFetchedFenced(begun.fetched, begun.flow);
    const first: Work[] = [...firstPlain.jobs, ...readOrderedFetched(begun.ordered)];
    const recurring = await runRecurring(runtime, calls, {
      tickId,
      due: begun.due,
      nowMs: housekept.nowMs,
      room: batch - first.length,
    });
    report.recurring += recurring.enqueued;
    noteExpired(report, events, recurring.expired);
    first.push(...recurring.fetched);
    if (!recurring.held) lost();
    let housekeepingLeft = housekept.more;

    while (housekeepingLeft && monotonicMs() - started < budgetMs * HOUSEKEEP_SHARE) {
      const reply = await calls.send(protocol.housekeep, {
        tickId,
        call: String(calls.next()),
        housekeep: housekeepArgs(limits),
      });
      const more = readHousekeep(reply);
      report.resurrected += more.resurrected;
      report.scheduled += more.scheduled;
      housekeepingLeft = more.more;
      if (!reply.leaseHeld) lost();
    }

    const step = async (
      acks: WorkOutcome[],
      fetch: number,
      solo: Work | null | undefined,
      load: TickLoad,
    ): Promise<StepReply<Work>> => {
      const sent = monotonicMs();
      try {
        const { plain, ordered } = splitOutcomes(acks);
        // A large solo job is recorded by its reference too (lib/tick/run-solo.lua): its text is not sent again.
        await nameLargeJobs([...plain.map((o) => o.job), ...(solo && !isOrdered(solo) ? [solo] : [])]);
        const stepped = await calls.send(protocol.step, {
          ...common,
          call: numbered(calls.next(), solo, load),
          beat: beats?.section(),
          acks: ackArgs(plain, runtime.results, takeProgress(runtime.progress), runtime.metrics),
          fetch: fetchArgs(plan, fetch),
          ordered: work.args(ordered),
        });
        learnClock(runtime, stepped.nowMs);
        report.deadEvicted += stepped.deadEvicted;
        // Heard before any fetched job can start: a cancelled one never does (src/cancel/).
        if (runtime.cancels.learn(tickId, stepped.cancels ?? [])) void fence.confirm();
        events.settled(plain, stepped.missed, stepped.nowMs, stepped.cancelled);
        events.orderedCancelled(ordered, stepped.orderedCancelled);
        settleCancels(runtime, plain, ordered);
        noteExpired(report, events, stepped.expired);
        recount(report, plain, stepped.cancelled);
        recountOrdered(report, ordered, stepped.orderedCancelled);
        const held = stepped.leaseHeld;
        if (held) fence.confirmed(sent);
        else lost();
        const fetchedPlain = readFetchedFenced(stepped.fetched, stepped.flow);
        const fetched: Work[] = [...fetchedPlain.jobs, ...readOrderedFetched(stepped.ordered)];
        report.fetched += fetched.length;
        return { held, fetched, more: fetchedPlain.capped, parked: fetchedPlain.parked, sentOn: stepped.sentOn ?? 0 };
      } catch (error) {
        controller.abort(error);
        throw error;
      }
    };

    // Beside the pipeline until the budget; nothing at all for an app with no workflow.
    const workflows = workflowPassOf(runtime, {
      tickId,
      calls,
      fence,
      signal: controller.signal,
      leaseMs,
      graceMs,
      concurrency,
      first: begun.workflows,
      pipelineDone: () => pipelineDone,
      // The last commits and finish fit in the budget's last tenth.
      stopAt: started + budgetMs * 0.9,
    });

    report.fetched += first.length;
    if (first.length >= batch) options.onBacklog?.();
    const result = await runPipeline({
      first,
      firstFull: first.length === batch || firstPlain.capped,
      firstParked: firstPlain.parked,
      batch,
      concurrency,
      slots: (options as TickOptionsWithSlots)[SHARED_SLOTS],
      fence,
      signal: controller.signal,
      graceMs,
      // Sidekiq's Busy page shows plain jobs only: an ordered id is no Sidekiq job.
      run: (job) => (beats && !isOrdered(job) ? beats.track(job, () => work.run(job)) : work.run(job)),
      interrupted: interruptedOf,
      unstarted: unstartedOf,
      holdsSlot: (job) => !isOrdered(job) && job.flowFence !== undefined,
      rank: rankOf(plan),
      startable: startableOf(budgetCheck(runtime, started + budgetMs, budgetMs, unstartable)),
      // A job at its poison limit goes dead without running: no need to run it alone.
      alone: (job) => (job.suspect || job.resurrections > 0) && job.resurrections < runtime.maxResurrections,
      step,
      onOutcome: (outcome) => {
        tally(report, outcome);
        unstartable.outcome(outcome);
      },
      watchLoad: (read) => void (readLoad = read),
    });
    pipelineDone = true;
    report.abandoned = result.abandoned;
    flowed = await workflows;
    if (flowed && !flowed.held) lost();
    const unstarted = [...result.deferred, ...result.unstarted];
    // So far requeued counts the jobs the deadline interrupted: they are back
    // in their queues, work a fresh tick can run, so the tick reports more
    // (each interruption is counted: a job that always overruns ends dead).
    // Jobs handed back while it ran are work another tick can run too, unless
    // this tick fetched them again and drained its queues (result.drained).
    const interrupted = report.requeued;
    report.requeued += unstarted.length + result.handedBack;
    report.more =
      !result.drained ||
      interrupted > 0 ||
      report.leaseLost ||
      housekeepingLeft ||
      recurring.more ||
      flowed?.more === true;

    fence.stop();
    beats?.stop();
    const { plain, ordered } = splitOutcomes([...result.finished, ...unstarted.map(unstartedOf)]);
    await nameLargeJobs(plain.map((o) => o.job));
    const finished = await calls.send(protocol.finish, {
      ...common,
      call: String(calls.next()),
      beat: beats?.section(),
      acks: ackArgs(plain, runtime.results, takeProgress(runtime.progress), runtime.metrics),
      queues: plan.names,
      unstartable: unstartable.args(),
      recent: recentSummary(report, monotonicMs() - started),
      ordered: work.args(ordered),
      workflows: flowed?.atFinish ?? [],
    });
    await flowed?.settle(finished.committed);
    report.deadEvicted += finished.deadEvicted;
    if ((finished.orderedReady ?? 0) > 0) report.more = true; // ordered ids whose arrivals waited behind a run
    if ((finished.sentOn ?? 0) > 0) report.more = true; // flow jobs these acks sent back to their queues
    events.settled(plain, finished.missed, finished.nowMs, finished.cancelled);
    events.orderedCancelled(ordered, finished.orderedCancelled);
    settleCancels(runtime, plain, ordered);
    recount(report, plain, finished.cancelled);
    recountOrdered(report, ordered, finished.orderedCancelled);
    if (result.failure !== undefined) throw result.failure;
    if (report.abandoned > 0) {
      runtime.logs.write(
        "warn",
        `tickq: tick ${tickId} left ${report.abandoned} job(s) whose handlers ignored the abort; they return to their queues once its lease expires`,
        { tickId, abandoned: report.abandoned },
      );
    }
  } finally {
    // Commits left for a finish that failed: refused, so their executions end (their runs are claimed again).
    await flowed?.settle(undefined);
    if (flowed) report.workflows = workflowTickReport(flowed);
    clearTimeout(deadline);
    fence.stop();
    beats?.stop();
    work.stop();
    await events.flush(Math.max(graceMs, 5_000));
    report.roundTrips = trips.count;
    report.durationMs = Math.round(monotonicMs() - started);
  }
  return report;
}

/** Jobs a fetch recorded as expired: counted, and an `expired` event each. */
function noteExpired(report: TickReport, events: TickEvents, texts: string[] | undefined): void {
  if (!texts) return;
  report.expired += texts.length;
  events.expired(texts);
}

/** What a tick's span records of its report. */
function tickAttributes(r: TickReport): Record<string, number | boolean> {
  return {
    "tickq.tick.fetched": r.fetched,
    "tickq.tick.succeeded": r.succeeded,
    "tickq.tick.failed": r.failed,
    "tickq.tick.dead": r.dead,
    "tickq.tick.more": r.more,
    "tickq.tick.lease_lost": r.leaseLost,
  };
}

/** Acked jobs and ordered runs are forgotten by the process's cancel watch (it knows only what is still held). */
function settleCancels(runtime: Runtime, acked: Outcome[], ordered: OrderedOutcome[]): void {
  if (!runtime.cancels.any()) return;
  for (const o of acked) if ("payload" in o && o.payload) runtime.cancels.forget(o.payload.jid);
  for (const { item } of ordered) runtime.cancels.forget(orderedCancelKey(item.name, item.fence, item.id));
}

/** Counts an outcome in the report (`by` -1 takes it back). */
function tally(report: TickReport, o: WorkOutcome, by = 1): void {
  if (o.kind === "cancelled") report.cancelled += by;
  else if (o.kind === "succeeded") report.succeeded += by;
  else if (o.kind === "retry") {
    report.retried += by;
    report.failed += by;
  } else if (o.kind === "dead") {
    report.dead += by;
    if (o.handlerFailed) report.failed += by;
  } else if (o.kind === "discarded") {
    report.discarded += by;
    report.failed += by;
  } else report.requeued += by;
}

/** Acks that Redis settled as cancelled (a cancel came first) count as cancelled, not as what their run said. */
function recount(report: TickReport, acked: Outcome[], cancelled: number[] | undefined): void {
  if (cancelled === undefined || cancelled.length === 0) return;
  const order = ackOrder(acked);
  for (const k of cancelled) {
    const o = order[k - 1];
    if (!o || o.kind === "cancelled") continue;
    tally(report, o, -1);
    report.cancelled++;
  }
}

/**
 * A step's call header (lib/tick/run-solo.lua): its number and the tick's
 * load ("seq/running/waiting"), then the solo marker: none leaves the
 * tick's solo record, "-" clears it, else the job to record.
 */
function numbered(seq: number, solo: Work | null | undefined, load: TickLoad): string {
  const head = `${seq}/${load.running}/${load.waiting}`;
  if (solo === undefined) return head;
  if (solo === null) return `${head} -`;
  return isOrdered(solo) ? `${head} o${solo.name} ${solo.id}` : `${head} p${solo.ref ?? solo.raw}`;
}

/** The budget check reads plain jobs' timeoutMs; an ordered id always starts. */
/** A job's place in strict queue order; an ordered id competes with the first queue. */
function rankOf(plan: QueuePlan): ((work: Work) => number) | undefined {
  const rank = strictRank(plan);
  return rank && ((work) => (isOrdered(work) ? 0 : rank(work.queue)));
}

function startableOf(check: ReturnType<typeof budgetCheck>): ((work: Work) => "start" | "later" | "never") | undefined {
  if (!check) return undefined;
  return (work) => (isOrdered(work) ? "start" : check(work));
}

/** Ordered runs Redis settled as cancelled ("NAME FENCE": a cancel came first) count as cancelled, not as what their run said. */
function recountOrdered(report: TickReport, acked: OrderedOutcome[], settled: string[] | undefined): void {
  if (settled === undefined || settled.length === 0) return;
  const keys = new Set(settled);
  for (const o of acked) {
    if (o.kind === "cancelled" || !keys.has(`${o.item.name} ${o.item.fence}`)) continue;
    tally(report, o, -1);
    report.cancelled++;
  }
}

/** A production tickq met a test prefix: its times are a virtual clock's, not Redis'. */
function virtualClockRefused(prefix: string): TickqError {
  return new TickqError(
    "BAD_STATE",
    `prefix ${JSON.stringify(prefix)} belongs to a test (tickq/testing moved its clock), so its due times are not real: ` +
      "give this tickq its own prefix, or close() the test tickq, which deletes the test's keys",
  );
}
