// The capabilities' parts of one tick, composed: their sections merged into
// each call (in the order createTickq lists them; a section belongs to one
// capability), work told apart by lane, and a plain job's run wrapped by
// every part that wraps it. The tick core calls these and names no capability.
import type { TickKeys } from "./numbered.js";
import type {
  Begun,
  Capability,
  Extended,
  FetchRead,
  JobHooks,
  FlowPart,
  Lane,
  TickContext,
  TickOutcome,
  TickPart,
  TickStart,
  TickWork,
} from "./capability.js";
import type { Outcome } from "./passes/ack.js";
import { readFetched, type FetchedGroups, type FetchedJob } from "./passes/fetch.js";

/** Outcomes split: plain jobs' for the core's acks, each part's lane's for its own sections. */
export interface SplitOutcomes {
  plain: Outcome[];
  /** By part, in the parts' order (empty for a part with no lane). */
  byPart: TickOutcome[][];
}

export interface TickParts {
  readonly list: readonly TickPart[];
  readonly keys: Partial<TickKeys>;
  /** Merges what each part returns (a section named by two parts: the later wins). */
  merged<A extends object>(each: (part: TickPart, k: number) => Partial<A> | undefined): Partial<A>;
  /** The lane that owns this work; undefined: a plain job. */
  laneOf(work: TickWork): Lane | undefined;
  split(outcomes: readonly TickOutcome[]): SplitOutcomes;
  readFetched(groups: FetchedGroups, flow: FlowPart): FetchRead;
  runPlain(job: FetchedJob, run: (signal: AbortSignal) => Promise<Outcome>, signal: AbortSignal): Promise<Outcome>;
  /** Whether some part wraps this plain job's run (runPlain then does more than call `run`). */
  wrapsPlain(job: FetchedJob): boolean;
  /** Whether any part has a lane: without one, every piece of work is a plain job. */
  readonly hasLanes: boolean;
  holdsSlot(job: FetchedJob): boolean;
  /** What the parts add to every plain job's run, merged. */
  readonly job: JobHooks;
  /** An extend's reply to each part (undefined: it failed). */
  extended(reply: Extended | undefined): void;
  /** Some part asks for another extend at once. */
  extendAgain(): boolean;
  /** begin's reply to each part, in order: the work they fetched, after `first`. */
  begun(reply: Begun, tick: TickContext, first: TickWork[]): Promise<void>;
  /** Some part made work due after begin's fetch. */
  madeDue(): boolean;
  /** Any part left work for the next tick. */
  more(): boolean;
  stop(): void;
}

const plainRead = (groups: FetchedGroups): FetchRead => ({ jobs: readFetched(groups), capped: false, parked: false });

export function tickParts(capabilities: readonly Capability[], start: TickStart): TickParts {
  const list: TickPart[] = [];
  for (const capability of capabilities) {
    const part = capability.forTick(start);
    if (part) list.push(part);
  }
  return new Parts(list);
}

// A class whose methods every tick shares: a tick makes one object, not ten closures
// (bench/ordered-instructions.ts). laneOf, wrapsPlain and holdsSlot run for every job: indexed loops, no
// iterator (bench/client-instructions.ts), and one function for every tick, reading the tick's parts as
// `this`: a closure each tick made V8 throw away the optimized code that calls them when the next
// tick's came (bench/drain-warmup.ts, traced).
class Parts implements TickParts {
  readonly keys: Partial<TickKeys> = {};
  readonly lanes: readonly { lane: Lane; k: number }[];
  readonly wrappers: readonly TickPart[];
  readonly slotHolders: readonly TickPart[];
  readonly hasLanes: boolean;
  readonly job: JobHooks = {};
  private readonly reader: TickPart | undefined;

  constructor(readonly list: readonly TickPart[]) {
    const lanes: { lane: Lane; k: number }[] = [];
    const wrappers: TickPart[] = [];
    const slotHolders: TickPart[] = [];
    let reader: TickPart | undefined;
    for (let k = 0; k < list.length; k++) {
      const part = list[k]!;
      if (part.lane) lanes.push({ lane: part.lane, k });
      if (part.readFetched !== undefined) reader = part;
      // The first part listed is the outermost wrapper: runPlain wraps from the last.
      if (part.runPlain !== undefined) wrappers.unshift(part);
      if (part.holdsSlot !== undefined) slotHolders.push(part);
      if (part.keys) Object.assign(this.keys, part.keys);
      if (part.job) Object.assign(this.job, part.job);
    }
    this.lanes = lanes;
    this.wrappers = wrappers;
    this.slotHolders = slotHolders;
    this.hasLanes = lanes.length > 0;
    this.reader = reader;
  }

  laneOf(work: TickWork): Lane | undefined {
    const { lanes } = this;
    for (let k = 0; k < lanes.length; k++) if (lanes[k]!.lane.owns(work)) return lanes[k]!.lane;
    return undefined;
  }

  wrapsPlain(job: FetchedJob): boolean {
    const { wrappers } = this;
    for (let k = 0; k < wrappers.length; k++) if (wrappers[k]!.wrapsPlain?.(job) !== false) return true;
    return false;
  }

  holdsSlot(job: FetchedJob): boolean {
    const { slotHolders } = this;
    for (let k = 0; k < slotHolders.length; k++) if (slotHolders[k]!.holdsSlot!(job)) return true;
    return false;
  }

  merged<A extends object>(each: (part: TickPart, k: number) => Partial<A> | undefined): Partial<A> {
    const { list } = this;
    const out = {};
    for (let k = 0; k < list.length; k++) Object.assign(out, each(list[k]!, k));
    return out;
  }

  split(outcomes: readonly TickOutcome[]): SplitOutcomes {
    const { list, lanes } = this;
    const byPart: TickOutcome[][] = [];
    for (let k = 0; k < list.length; k++) byPart.push([]);
    // No part has a lane (most ticks): every outcome is a plain job's, taken in one copy, not one push each.
    if (lanes.length === 0) return { plain: outcomes.slice() as Outcome[], byPart };
    const plain: Outcome[] = [];
    next: for (const o of outcomes) {
      for (const { lane, k } of lanes) {
        if (lane.ownsOutcome(o)) {
          byPart[k]!.push(o);
          continue next;
        }
      }
      plain.push(o as Outcome);
    }
    return { plain, byPart };
  }

  readFetched(groups: FetchedGroups, flow: FlowPart): FetchRead {
    const { reader } = this;
    return reader ? reader.readFetched!(groups, flow) : plainRead(groups);
  }

  runPlain(job: FetchedJob, run: (signal: AbortSignal) => Promise<Outcome>, signal: AbortSignal): Promise<Outcome> {
    // The first part listed is the outermost wrapper.
    let wrapped = run;
    for (const part of this.wrappers) {
      if (part.wrapsPlain?.(job) === false) continue;
      const inner = wrapped;
      wrapped = (s) => part.runPlain!(job, inner, s);
    }
    return wrapped(signal);
  }

  extended(reply: Extended | undefined): void {
    for (const part of this.list) part.extended?.(reply);
  }

  extendAgain(): boolean {
    return this.list.some((part) => part.extendAgain?.() === true);
  }

  // A part's `begun` that answers at once is taken as it is: no await, no turn of microtasks, for each part.
  async begun(reply: Begun, tick: TickContext, first: TickWork[]): Promise<void> {
    const { list } = this;
    for (let k = 0; k < list.length; k++) {
      const answer = list[k]!.begun?.(reply, tick, tick.batch - first.length);
      const fetched = answer instanceof Promise ? await answer : answer;
      if (fetched) for (let i = 0; i < fetched.length; i++) first.push(fetched[i]!);
    }
  }

  madeDue(): boolean {
    return this.list.some((part) => part.madeDue?.() === true);
  }

  more(): boolean {
    return this.list.some((part) => part.more?.() === true);
  }

  stop(): void {
    for (const part of this.list) part.stop?.();
  }
}
