// Reads the fields lib/metrics/record-runs.lua and record-ordered-runs.lua write
// ("j|NAME|r", "q|QUEUE|b3", "o|ORDERED|b3", …) into per-name, per-queue and
// per-ordered-name tallies. A name is everything between the first
// and the last '|', so a name holding '|' reads back whole.
import { BUCKET_COUNT } from "./buckets.js";

/** Counts of one job name over some stretch of time. */
export interface JobTally {
  runs: number;
  failures: number;
  retried: number;
  dead: number;
  durationMsSum: number;
  /** Runs per bucket (not cumulative), bucket k for BUCKET_BOUNDS_MS[k], the last for +Inf. */
  buckets: number[];
}

/** Waits of one queue over some stretch of time. */
export interface WaitTally {
  waits: number;
  waitMsSum: number;
  buckets: number[];
}

export const emptyJob = (): JobTally => ({
  runs: 0,
  failures: 0,
  retried: 0,
  dead: 0,
  durationMsSum: 0,
  buckets: new Array(BUCKET_COUNT).fill(0),
});
export const emptyWait = (): WaitTally => ({ waits: 0, waitMsSum: 0, buckets: new Array(BUCKET_COUNT).fill(0) });

export interface Tallies {
  jobs: Map<string, JobTally>;
  queues: Map<string, WaitTally>;
  /** Waits of ordered ids per ordered name, from due to start. */
  ordered: Map<string, WaitTally>;
}

export const emptyTallies = (): Tallies => ({ jobs: new Map(), queues: new Map(), ordered: new Map() });

/** Adds a flat field, value, … list into `into`. */
export function addFields(flat: readonly string[], into: Tallies): Tallies {
  for (let k = 0; k + 1 < flat.length; k += 2) {
    const field = flat[k] as string;
    const value = Number(flat[k + 1]);
    const last = field.lastIndexOf("|");
    if (last < 2 || !Number.isFinite(value)) continue;
    const owner = field.slice(2, last);
    const what = field.slice(last + 1);
    if (field.startsWith("j|")) addJob(tallyOf(into.jobs, owner, emptyJob), what, value);
    else if (field.startsWith("q|")) addWait(tallyOf(into.queues, owner, emptyWait), what, value);
    else if (field.startsWith("o|")) addWait(tallyOf(into.ordered, owner, emptyWait), what, value);
  }
  return into;
}

function tallyOf<T>(map: Map<string, T>, key: string, empty: () => T): T {
  let tally = map.get(key);
  if (!tally) {
    tally = empty();
    map.set(key, tally);
  }
  return tally;
}

function addJob(t: JobTally, what: string, value: number): void {
  if (what === "r") t.runs += value;
  else if (what === "f") t.failures += value;
  else if (what === "ms") t.durationMsSum += value;
  else if (what === "retried") t.retried += value;
  else if (what === "dead") t.dead += value;
  else addBucket(t.buckets, what, value);
}

// A histogram's count is the sum of its buckets.
function addWait(t: WaitTally, what: string, value: number): void {
  if (what === "ms") t.waitMsSum += value;
  else if (addBucket(t.buckets, what, value)) t.waits += value;
}

// Buckets are numbered from 1 in Lua.
function addBucket(buckets: number[], what: string, value: number): boolean {
  const k = Number(what.slice(1)) - 1;
  if (what[0] !== "b" || !Number.isInteger(k) || k < 0 || k >= buckets.length) return false;
  buckets[k] = (buckets[k] ?? 0) + value;
  return true;
}

export function addJobTally(into: JobTally, from: JobTally): void {
  into.runs += from.runs;
  into.failures += from.failures;
  into.retried += from.retried;
  into.dead += from.dead;
  into.durationMsSum += from.durationMsSum;
  from.buckets.forEach((n, k) => {
    into.buckets[k] = (into.buckets[k] ?? 0) + n;
  });
}

export function addWaitTally(into: WaitTally, from: WaitTally): void {
  into.waits += from.waits;
  into.waitMsSum += from.waitMsSum;
  from.buckets.forEach((n, k) => {
    into.buckets[k] = (into.buckets[k] ?? 0) + n;
  });
}
