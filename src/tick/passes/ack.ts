// Outcomes of executed jobs, encoded for lib/tick/ack-jobs.lua (see its header for
// what each kind does in Redis).
import type { ArgOf } from "../../protocol/define.js";
import type { acks } from "../../protocol/sections.js";
import type { JobPayload } from "../../job/payload.js";
import { patchOf } from "./ack-refs.js";
import type { FetchedBatch, FetchedJob } from "./fetch.js";

// `payload`, `error` and `reason` ride along for the events and the failure
// log line (src/tick/events.ts); Redis never sees them. `fields`: what `updated`
// spliced into the job, sent instead of it for a job named by reference
// (ack-refs.ts); absent when `updated` is no splice (a malformed job).
// `value` and `durationMs`: the handler's return and run time, for results (src/results/).
// `ran`: what the tick measured of a job that ran, for metrics (src/metrics/).
export type Outcome = Measured &
  (
    | { kind: "succeeded"; job: FetchedJob; payload?: JobPayload; value?: unknown; durationMs?: number }
    | {
        kind: "retry";
        job: FetchedJob;
        updated: string;
        fields?: Record<string, unknown>;
        delaySec: number;
        payload?: JobPayload;
        error?: unknown;
      }
    | {
        kind: "dead";
        job: FetchedJob;
        updated: string;
        fields?: Record<string, unknown>;
        handlerFailed: boolean;
        payload?: JobPayload;
        error?: unknown;
        reason?: string;
      }
    /** Failed out of retries with `dead: false`: dropped, counted as failed. */
    | { kind: "discarded"; job: FetchedJob; payload?: JobPayload; error?: unknown }
    | { kind: "unstarted"; job: FetchedJob }
    | { kind: "interrupted"; job: FetchedJob }
    /** Stopped because the tick could not confirm its lease in time: put back, counted in `doubts`. */
    | { kind: "inDoubt"; job: FetchedJob }
    /** Cancelled (tq.jobs.cancel) before it started or while it ran: recorded cancelled, its result discarded. */
    | { kind: "cancelled"; job: FetchedJob; payload?: JobPayload }
  );
type Measured = { ran?: RunMeasure };

/** What the tick measured of one run: its job name, its run time (monotonic clock) and its wait from enqueue to start. */
export interface RunMeasure {
  name: string;
  durationMs: number;
  /** Undefined for a job with no `enqueued_at`. */
  waitMs: number | undefined;
}

const CODES = {
  retry: "r",
  dead: "d",
  discarded: "x",
  unstarted: "q",
  interrupted: "i",
  inDoubt: "l",
  cancelled: "c",
} as const;
/** A dead entry for a job that did not run (poison, malformed, too long): not counted as processed. */
const UNRUN = "u";

type Settled = Exclude<Outcome, { kind: "succeeded" }>;
const putBack = (o: Outcome) => o.kind === "unstarted" || o.kind === "interrupted" || o.kind === "inDoubt";
const settled = (o: Outcome): o is Settled => o.kind !== "succeeded";

/**
 * Whether these are most acks: successes all, of one queue and one job name. Then the outcomes as
 * they are are their own group and their own ack order, found in one loop where grouping builds
 * maps, iterators and filtered copies (and is code that V8 then optimizes during a drain:
 * bench/client-instructions.ts counts the difference).
 */
function oneGroup(outcomes: Outcome[]): boolean {
  const first = outcomes[0];
  if (first === undefined || first.kind !== "succeeded" || first.job.batch?.apart === true) return false;
  const { queue } = first.job;
  const name = first.ran?.name;
  for (let k = 1; k < outcomes.length; k++) {
    const o = outcomes[k]!;
    if (o.kind !== "succeeded" || o.job.queue !== queue || o.ran?.name !== name || o.job.batch?.apart === true)
      return false;
  }
  return true;
}

/** Groups of successes as [queue, outcomes], in ack order. */
type Succeeded = [string, Outcome[]][];

/**
 * The outcomes grouped as lib/tick/ack-jobs.lua takes them: successes by queue, then those of each
 * batch acked apart (FetchedBatch.apart), then the others in their order.
 */
function grouped(outcomes: Outcome[]): { succeeded: Succeeded; ordered: Settled[] } {
  // Within a queue, the successes of one job name go together: the metrics section counts them as one group.
  const byQueue = new Map<string, Map<string, Outcome[]>>();
  let apart: Map<FetchedBatch, Outcome[]> | undefined;
  for (const o of outcomes) {
    if (o.kind !== "succeeded") continue;
    const batch = o.job.batch;
    if (batch?.apart === true) {
      apart ??= new Map();
      const group = apart.get(batch);
      if (group) group.push(o);
      else apart.set(batch, [o]);
      continue;
    }
    const name = o.ran?.name ?? "";
    let names = byQueue.get(o.job.queue);
    if (!names) {
      names = new Map();
      byQueue.set(o.job.queue, names);
    }
    const group = names.get(name);
    if (group) group.push(o);
    else names.set(name, [o]);
  }
  const succeeded: Succeeded = [];
  for (const [queue, names] of byQueue) {
    // One job name (most acks): its group as it is, not a copy.
    if (names.size === 1) {
      for (const group of names.values()) succeeded.push([queue, group]);
      continue;
    }
    const all: Outcome[] = [];
    for (const group of names.values()) for (const o of group) all.push(o);
    succeeded.push([queue, all]);
  }
  if (apart) for (const group of apart.values()) succeeded.push([group[0]!.job.queue, group]);
  // Jobs put back are pushed one by one onto the head of their queue: the
  // last pushed is fetched first, so they go in reverse to keep their order.
  const rest = outcomes.filter(settled);
  if (rest.length === 0) return { succeeded, ordered: [] };
  return { succeeded, ordered: [...rest.filter((o) => !putBack(o)), ...rest.filter(putBack).reverse()] };
}

/** The outcomes in the order lib/tick/ack-jobs.lua numbers its entries (its "missed" list names them by that number, from 1). */
export function ackOrder(outcomes: Outcome[]): Outcome[] {
  if (oneGroup(outcomes)) return outcomes;
  const { succeeded, ordered } = grouped(outcomes);
  return inOrder(succeeded, ordered);
}

/** The successes queue by queue, then the others. */
function inOrder(succeeded: Succeeded, ordered: Settled[]): Outcome[] {
  const all: Outcome[] = [];
  for (const [, group] of succeeded) for (const o of group) all.push(o);
  for (const o of ordered) all.push(o);
  return all;
}

/** A group's jobs as acks name them: a large job by its reference. */
function namesOf(group: Outcome[]): string[] {
  const names = new Array<string>(group.length);
  for (let k = 0; k < group.length; k++) {
    const { job } = group[k]!;
    names[k] = job.ref ?? job.raw;
  }
  return names;
}

/**
 * The place of the fetched group `group` is, all of it, else "": lib/tick/ack-jobs.lua then cuts it
 * from the tick's list by its place, its jobs neither read nor matched (by_place.cut).
 */
function placeOf(group: Outcome[]): string {
  const batch = group[0]?.job.batch;
  if (batch === undefined || group.length !== batch.size) return "";
  for (let k = 1; k < group.length; k++) if (group[k]!.job.batch !== batch) return "";
  return String(batch.place);
}

/**
 * Whether every job of `group` opens as a plain job (a JSON object, not '{"t': lib/flow/read.lua
 * FLOW_HEAD) and is named by its text: the script tells a flow job (whose success frees its slot,
 * which needs its text) by the group's joined value, so a group named by place alone holds none.
 */
function plainJobs(group: Outcome[]): boolean {
  for (let k = 0; k < group.length; k++) {
    const { job } = group[k]!;
    const raw = job.raw;
    if (job.ref !== undefined || raw.charCodeAt(0) !== 123 || (raw.charCodeAt(1) === 34 && raw.charCodeAt(2) === 116))
      return false;
  }
  return true;
}

/**
 * A group of successes as the acks name it: by its place alone when `alone` (a step's acks, of a
 * queue the tick has not seen a group of left uncut so), no other entry names its
 * queue, no result is kept and it holds no flow job (lib/tick/ack-jobs.lua by_place.applies); else
 * with its jobs' text (and its place, for the script to cut it by when it may).
 */
function succeededGroup(queue: string, group: Outcome[], alone: boolean): AckArgs["succeeded"][number] {
  const place = placeOf(group);
  if (alone && place !== "" && plainJobs(group)) return { queue, place: `${place}+${group.length}`, jobs: [] };
  return { queue, place, jobs: namesOf(group) };
}

/** How many jobs a group named by its place alone ("PLACE+COUNT") stands for, else undefined. */
function unsentCount(place: string): number | undefined {
  const plus = place.indexOf("+");
  return plus < 0 ? undefined : Number(place.slice(plus + 1));
}

const NONE: Outcome[] = [];

/**
 * The outcomes of the groups `acks` named by place alone that lib/tick/ack-jobs.lua could not cut
 * so (their entries answered in `missed`): still listed, unsettled, sent again by their text.
 */
export function unplaced(acks: AckArgs, plain: Outcome[], missed: readonly number[] | undefined): Outcome[] {
  if (missed === undefined || missed.length === 0) return NONE;
  return byPlaceAlone(acks, plain, missed);
}

/** The outcomes of the groups `acks` named by place alone (those whose first entry `only` holds, when given). */
export function byPlaceAlone(acks: AckArgs, plain: Outcome[], only?: readonly number[]): Outcome[] {
  let entry = 1;
  let order: Outcome[] | undefined;
  let out: Outcome[] | undefined;
  for (const group of acks.succeeded) {
    const unsent = unsentCount(group.place);
    const count = unsent ?? group.jobs.length;
    if (unsent !== undefined && (only === undefined || only.includes(entry))) {
      order ??= ackOrder(plain);
      out ??= [];
      for (let k = entry - 1; k < entry - 1 + count; k++) out.push(order[k]!);
    }
    entry += count;
  }
  return out ?? NONE;
}

/** The updated text, or for a job named by reference the patch that makes it. */
function updatedOf(o: Settled): string {
  if (o.kind !== "retry" && o.kind !== "dead") return "";
  if (o.job.ref === undefined) return o.updated;
  return patchOf(o.fields, o.kind === "dead" && o.reason !== undefined ? o.reason : "it failed");
}

/** The trailers of the acks' others, results then metrics (src/protocol/sections.ts `acks`). */
export type AckTrailers = Omit<AckArgs["others"], "items">;

/**
 * Builds the trailers of an acks part: `inAckOrder` as lib/tick/ack-jobs.lua numbers the outcomes
 * (the successes, then `others` others). The capabilities that keep results or metrics give them
 * (tick/capability.ts `ackTrailers`).
 */
export type AckTrailersOf = (outcomes: Outcome[], inAckOrder: Outcome[], others: number) => AckTrailers;

/**
 * The acks part of a tick call (lib/tick/ack-jobs.lua): successes grouped by queue, then the other
 * outcomes; a job with a `ref` is named by it. `trailers`: what rides on the others' count (results,
 * lib/results/keep-results.lua; metrics, lib/metrics/record-runs.lua). `doubted`: given for a step
 * (not finish, which has no later call to send a group again), the queues whose whole fetched groups
 * may not be named by place alone; the others' are, no text sent, and one the script could not cut
 * so is answered in `missed` (`unplaced` finds them) and goes again by text in a later call. A set,
 * not a function: a new function each tick would deoptimize this call site each tick.
 */
export function ackArgs(outcomes: Outcome[], trailers?: AckTrailersOf, doubted?: ReadonlySet<string>): AckArgs {
  // Most acks (successes all, one queue, one job name): the outcomes are their own ack order, with
  // no map, copy or spread made of them (bench/client-instructions.ts counts the difference).
  if (oneGroup(outcomes)) {
    const queue = outcomes[0]!.job.queue;
    const tail = trailers?.(outcomes, outcomes, 0);
    const byPlace = doubted !== undefined && tail?.results === undefined && !doubted.has(queue);
    return { succeeded: [succeededGroup(queue, outcomes, byPlace)], others: { items: [], ...tail } };
  }
  const { succeeded, ordered } = grouped(outcomes);
  const inAckOrder = inOrder(succeeded, ordered);
  const tail = trailers?.(outcomes, inAckOrder, ordered.length);
  // A queue another entry names is settled by text (lib/tick/ack-jobs.lua by_place.applies).
  const byPlace = doubted !== undefined && tail?.results === undefined;
  const othersOf = byPlace && ordered.length > 0 ? new Set(ordered.map((o) => o.job.queue)) : undefined;
  const items = ordered.map((o) => ({
    code: o.kind === "dead" && !o.handlerFailed ? UNRUN : CODES[o.kind],
    queue: o.job.queue,
    job: o.job.ref ?? o.job.raw,
    updated: updatedOf(o),
    delay: o.kind === "retry" ? o.delaySec : 0,
  }));
  return {
    succeeded: succeeded.map(([queue, group]) =>
      succeededGroup(
        queue,
        group,
        byPlace && !othersOf?.has(queue) && !doubted!.has(queue) && group[0]!.job.batch?.apart !== true,
      ),
    ),
    others: { items, ...tail },
  };
}

/** The acks part as src/protocol declares it (`acks` in sections.ts). */
export type AckArgs = ArgOf<typeof acks>;
