// One tick: begin (lease, resurrect, schedule, fetch) → the pipeline
// (execute, with steps that ack, extend and fetch) → finish (ack, requeue,
// unregister). A tick killed at any line loses nothing: its fetched jobs sit
// in its inproc lists until acked, and once its lease expires the next
// tick's resurrect pass puts them back. Every call is numbered and resent
// unchanged on transient errors (calls.ts), so a replay is harmless.
// Capabilities add their sections to these same calls and their lanes to the
// same slots (capability.ts); this file names none of them.
import { monotonicMs } from "./clock.js";
import { housekeepArgs, readHousekeep } from "./passes/housekeep.js";
import { runPipeline, type PipelineResult } from "./pipeline.js";
import { fetchArgs } from "./queue-order.js";
import { learnClock, learnEvictionPolicy, redisNowMs, type Runtime } from "./runtime.js";
import * as protocol from "../protocol/index.js";
import type { BeginArgs, Begun, FinishArgs, TickOutcome, TickWork } from "./capability.js";
import { openTick, type OpenTick } from "./open.js";
import { settleGivenUp } from "./given-up.js";
import { pipelineInput } from "./pipeline-input.js";
import { recount, tickAttributes } from "./report.js";
import { newJid } from "../job/codec.js";
import { recentSummary } from "./recent.js";
import { TickqError } from "../errors.js";
import type { TickOptions } from "./options.js";
import type { TickReport } from "./tick-report.js";

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
  const t = openTick(runtime, options, tickId);
  try {
    const first = await begin(t);
    if (first === undefined) return t.report;
    const housekeepingLeft = first.housekeepingLeft && (await housekeep(t, true));
    // Only the parts with work beside the pipeline: none (most ticks) is no Promise.all to wait for.
    const besides: Promise<void>[] = [];
    for (const part of t.parts.list) {
      const beside = part.beside?.(t.ctx, first.begun);
      if (beside !== undefined) besides.push(beside);
    }
    t.report.fetched += first.work.length;
    if (first.work.length >= t.settings.batch) options.onBacklog?.();
    const result = await runPipeline(pipelineInput(t, options, first.work, first.full, first.parked, first.behind));
    t.pipelineDone = true;
    t.report.abandoned = result.abandoned;
    if (besides.length > 0) await Promise.all(besides);
    await finish(t, result, housekeepingLeft);
  } finally {
    await t.close();
  }
  return t.report;
}

interface FirstFetch {
  begun: Begun;
  work: TickWork[];
  /** The first fetch filled its batch, or stopped at its cap of flow jobs set aside. */
  full: boolean;
  parked: boolean;
  /** Capped ordered ids it took left payloads behind their runs (begin's `drained` 2 or 3). */
  behind: boolean;
  housekeepingLeft: boolean;
}

/** begin: the lease, housekeeping, the first fetch; undefined when the lease was gone. */
async function begin(t: OpenTick): Promise<FirstFetch | undefined> {
  const { runtime, report, settings, ctx } = t;
  const registration = `${Math.round(redisNowMs(runtime))} ${settings.leaseMs} ${runtime.plan.names.join(" ")}`;
  const sentAt = monotonicMs();
  const begun = await t.calls.send(protocol.begin, {
    ...t.parts.merged((part) => part.beginArgs?.(ctx)),
    ...t.common,
    registration,
    housekeep: housekeepArgs(t.limits),
    askPolicy: runtime.evictionPolicy === undefined,
    fetch: fetchArgs(runtime.plan, settings.batch),
  } as BeginArgs);
  if (begun.testClock === 1 && !runtime.virtualClock) throw virtualClockRefused(runtime.prefix);
  const housekept = readHousekeep(begun);
  learnClock(runtime, housekept.nowMs);
  learnEvictionPolicy(runtime, begun.policy);
  report.resurrected += housekept.resurrected;
  report.scheduled += housekept.scheduled;
  if (!begun.leaseHeld) {
    t.lost();
    return undefined;
  }
  t.fence.confirmed(sentAt);
  for (const part of t.parts.list) part.started?.(ctx);
  const plain = t.parts.readFetched(begun.fetched, begun.flow);
  const work: TickWork[] = [...plain.jobs];
  await t.parts.begun(begun, ctx, work);
  // A full batch that left nothing due behind (begun.drained) needs no step to look again, unless a
  // part made work due since (recurring jobs enqueued after the fetch): its acks go in finish.
  const drained = (begun.drained === 1 || begun.drained === 2) && !t.parts.madeDue();
  return {
    begun,
    work,
    full: (work.length === settings.batch && !drained) || plain.capped,
    parked: plain.parked,
    behind: begun.drained === 2 || begun.drained === 3,
    housekeepingLeft: housekept.more,
  };
}

/** Housekeeping begin left undone, within a share of the budget: whether some is still left. */
async function housekeep(t: OpenTick, left: boolean): Promise<boolean> {
  const { report, settings } = t;
  while (left && monotonicMs() - t.startedAt < settings.budgetMs * HOUSEKEEP_SHARE) {
    const reply = await t.calls.send(protocol.housekeep, {
      tickId: t.tickId,
      call: String(t.calls.next()),
      housekeep: housekeepArgs(t.limits),
    });
    const more = readHousekeep(reply);
    report.resurrected += more.resurrected;
    report.scheduled += more.scheduled;
    left = more.more;
    if (!reply.leaseHeld) t.lost();
  }
  return left;
}

/** finish: the last acks, the jobs handed back, the tick unregistered. */
async function finish(t: OpenTick, result: PipelineResult<TickWork, TickOutcome>, housekeepingLeft: boolean) {
  const { report, parts } = t;
  // A step given up may have run at Redis since: its reply, taken now, settles its acks and hands its jobs back.
  const late = await settleGivenUp(t, result.finished);
  const unstarted = [...result.deferred, ...result.unstarted, ...late.fetched];
  // So far requeued counts the jobs the deadline interrupted: they are back
  // in their queues, work a fresh tick can run, so the tick reports more
  // (each interruption is counted: a job that always overruns ends dead).
  // Jobs handed back while it ran are work another tick can run too, unless
  // this tick fetched them again and drained its queues (result.drained).
  const interrupted = report.requeued;
  report.requeued += unstarted.length + result.handedBack;
  report.more = !result.drained || interrupted > 0 || report.leaseLost || housekeepingLeft || parts.more();

  t.fence.stop();
  parts.stop();
  const { plain, byPart } = parts.split([...late.finished, ...unstarted.map((w) => t.unstartedOf(w))]);
  const finished = await t.calls.send(protocol.finish, {
    ...parts.merged((part, k) => part.finishArgs?.(byPart[k]!)),
    ...t.common,
    call: String(t.calls.next()),
    acks: await t.acks(plain),
    queues: t.runtime.plan.names,
    unstartable: t.unstartable.args(),
    recent: recentSummary(report, monotonicMs() - t.startedAt),
  } as FinishArgs);
  // Finish ran after the lease was gone (held in transit, resent across a restart): another tick may
  // have resurrected and rerun what its acks found missing.
  if (finished.leaseGone === 1) report.leaseLost = true;
  for (let k = 0; k < parts.list.length; k++) {
    const done = parts.list[k]!.finished?.(finished, byPart[k]!, plain);
    if (done instanceof Promise) await done;
  }
  report.deadEvicted += finished.deadEvicted;
  if ((finished.sentOn ?? 0) > 0) report.more = true; // flow jobs these acks sent back to their queues
  t.events.settled(plain, finished.missed, finished.nowMs, finished.cancelled);
  recount(report, plain, finished.cancelled);
  if (result.failure !== undefined && late.recovered.includes(result.failure)) givenUpWarning(t, late.recovered.length);
  else if (result.failure !== undefined) throw result.failure;
  if (report.abandoned > 0) {
    t.runtime.logs.write(
      "warn",
      `tickq: tick ${t.tickId} left ${report.abandoned} job(s) whose handlers ignored the abort; they return to their queues once its lease expires`,
      { tickId: t.tickId, abandoned: report.abandoned },
    );
  }
}

/**
 * Every step the tick gave up on answered its resend before finish (given-up.ts): nothing is lost or
 * left behind, so the tick ends with a warning, not the timeout. It reports no `more`: a Redis that
 * timed out gets no fan-out of ticks (the /tick route, the kick loop) before the next trigger.
 */
function givenUpWarning(t: OpenTick, steps: number): void {
  t.report.givenUpSteps = steps;
  t.report.more = false;
  t.runtime.logs.write(
    "warn",
    `tickq: tick ${t.tickId} gave up on ${steps} step(s) after redisTimeoutMs and stopped early; their resend before finish was answered, so nothing was lost; what is left waits for the next tick`,
    { tickId: t.tickId, givenUpSteps: steps },
  );
}

/** A production tickq met a test prefix: its times are a virtual clock's, not Redis'. */
function virtualClockRefused(prefix: string): TickqError {
  return new TickqError(
    "BAD_STATE",
    `prefix ${JSON.stringify(prefix)} belongs to a test (tickq/testing moved its clock), so its due times are not real: ` +
      "give this tickq its own prefix, or close() the test tickq, which deletes the test's keys",
  );
}
