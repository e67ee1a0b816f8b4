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
import type { FetchedJob } from "./passes/fetch.js";
import { budgetCheck } from "./passes/start-budget.js";
import type { PipelineInput } from "./pipeline.js";
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
): Input {
  const { runtime, parts, settings } = t;
  const check = budgetCheck(runtime, t.startedAt + settings.budgetMs, settings.budgetMs, t.unstartable);
  const rank = strictRank(runtime.plan);
  const { graceMs } = settings;
  return {
    first,
    firstFull,
    firstParked,
    batch: settings.batch,
    concurrency: settings.concurrency,
    slots: (options as TickOptionsWithSlots)[SHARED_SLOTS],
    fence: t.fence,
    signal: t.signal,
    graceMs,
    // Casts, not a function called a job to make them: each small function the per-job path calls is
    // one more that V8 compiles once it is hot (bench/client-instructions.ts).
    run: (work) => {
      const lane = parts.hasLanes ? parts.laneOf(work) : undefined;
      if (lane) return lane.run(work);
      // A job no part wraps (most): no closure for it, and no promise when its handler returns at once
      // (bench/client-instructions.ts counts the difference).
      if (!parts.wrapsPlain(work as FetchedJob))
        return runJobNow(runtime, work as FetchedJob, t.signal, graceMs, parts.job);
      return parts.runPlain(
        work as FetchedJob,
        (signal) => runJob(runtime, work as FetchedJob, signal, graceMs, parts.job),
        t.signal,
      );
    },
    interrupted: (work) => parts.laneOf(work)?.interrupted(work) ?? { kind: "interrupted", job: work as FetchedJob },
    unstarted: (work) => t.unstartedOf(work),
    holdsSlot: (work) => parts.laneOf(work) === undefined && parts.holdsSlot(work as FetchedJob),
    // A lane's work competes with the queue its rank names.
    rank: rank && ((work) => parts.laneOf(work)?.rank ?? rank((work as FetchedJob).queue)),
    // The budget check reads plain jobs' timeoutMs; a lane's work always starts.
    startable: check && ((work) => (parts.laneOf(work) ? "start" : check(work as FetchedJob))),
    // A job at its poison limit goes dead without running: no need to run it alone.
    alone: (work) => (work.suspect || work.resurrections > 0) && work.resurrections < runtime.maxResurrections,
    // Each call its own request (HTTP): the next fetch's round trip overlaps the last one's. One
    // connection (TCP): the next step waits queued at Redis while the tick runs the last one's jobs.
    lanes: runtime.redis.separateRequests === true ? "requests" : "connection",
    step: stepOf(t),
    onOutcome: (outcome) => {
      tally(t.report, outcome);
      t.unstartable.outcome(outcome);
    },
    watchLoad: (read) => void (t.readLoad = read),
  };
}

/** A step call: acks what finished, fetches up to `fetch`, records or clears the solo run. */
function stepOf(t: OpenTick): Input["step"] {
  const { runtime, parts } = t;
  return async (acks, fetch, solo, load, lane) => {
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
  };
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
