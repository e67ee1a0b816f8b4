// The metrics section of an ack (lib/metrics/record-runs.lua): the others'
// metrics trailer (src/protocol/sections.ts `acks`), announced as
// " mG RETENTION" after the others count. The successes come as G groups,
// one per queue and job name (src/tick/passes/ack.ts puts each group's
// entries next to each other), summed here so the script adds a handful of
// numbers per group instead of reading three per job: name, queue, entries,
// summed run time, summed wait, and the duration and wait buckets as "K N K N …"
// (K from 1, N jobs in it). Then per other outcome, in order: its name ('' when
// it did not run: put back, unrunnable), run time and wait in ms ('' unknown).
import type { ArgOf } from "../protocol/define.js";
import type { acks } from "../protocol/sections.js";
import type { Outcome } from "../tick/passes/ack.js";
import { BUCKET_BOUNDS_MS, BUCKET_COUNT } from "./buckets.js";
import type { MetricsSettings } from "./settings.js";

/** What the tick measured of one run (declared with the acks that carry it). */
export type { RunMeasure } from "../tick/passes/ack.js";

const msText = (ms: number) => Math.max(0, Math.round(ms));

/** The bucket (from 1) lib/metrics/record-runs.lua files a rounded ms value under. */
export function bucketOf(ms: number): number {
  for (let k = 0; k < BUCKET_BOUNDS_MS.length; k++) if (ms <= (BUCKET_BOUNDS_MS[k] as number)) return k + 1;
  return BUCKET_BOUNDS_MS.length + 1;
}

/** Whole ms up to this are filed by the table at their own index: most runs and waits, two a job (bench/client-instructions.ts). */
const TABLED_MS = 1_000;
/** Every bound past TABLED_MS is a multiple of this: a whole ms there files as the multiple at or above it. */
const COARSE_MS = 500;
/** The coarse steps the table holds: the last bound's, then one for every ms past it. */
const COARSE_STEPS = (BUCKET_BOUNDS_MS.at(-1) as number) / COARSE_MS + 1;
const tabled = Uint8Array.from({ length: TABLED_MS + 1 + COARSE_STEPS + 1 }, (_, i) =>
  bucketOf(i <= TABLED_MS ? i : (i - TABLED_MS - 1) * COARSE_MS),
);

/**
 * bucketOf for a whole, non-negative ms (msText's), by the table. Past TABLED_MS by its coarse step,
 * computed for every value: a branch that calls bucketOf only for a long wait deoptimized the ack's
 * metrics code the first time a wait passed a second, mid-drain (bench/client-instructions.ts).
 */
const bucketOfWhole = (ms: number): number => {
  const coarse = TABLED_MS + 1 + Math.min(Math.ceil(ms / COARSE_MS), COARSE_STEPS);
  return tabled[ms <= TABLED_MS ? ms : coarse] ?? BUCKET_COUNT;
};

interface Group {
  name: string;
  queue: string;
  entries: number;
  ms: number;
  waitMs: number;
  /** Jobs per bucket, index k for Lua's bucket k + 1. */
  durations: number[];
  waits: number[];
}

function bucketsText(counts: number[]): string {
  let text = "";
  for (let k = 0; k < counts.length; k++) {
    const n = counts[k] as number;
    if (n > 0) text += `${text === "" ? "" : " "}${k + 1} ${n}`;
  }
  return text;
}

/** The metrics trailer of an ack's others, as src/protocol/sections.ts `acks` declares it. */
export type MetricsTrailer = NonNullable<ArgOf<typeof acks>["others"]["metrics"]>;

/**
 * `inAckOrder`: the successes (grouped as ackArgs groups them), then the `others` other outcomes.
 * In three functions, not one: the successes' loop (groupsOf) runs once a job and is compiled early;
 * the per-group texts and the others' entries run once a step or seldom, and TurboFan compiled all of
 * it as one graph, the largest of a short drain (bench/drain-warmup.ts).
 */
export function metricsSection(
  inAckOrder: readonly Outcome[],
  others: number,
  settings: MetricsSettings | undefined,
): MetricsTrailer | undefined {
  if (!settings || inAckOrder.length === 0) return undefined;
  const successes = inAckOrder.length - others;
  const groups = groupsOf(inAckOrder, successes);
  const entries: MetricsTrailer["entries"][number][] = [];
  // Stores at the length, not push(): see groupsOf.
  for (let k = 0; k < groups.length; k++) entries[k] = entryOf(groups[k] as Group);
  const perItem = others === 0 ? [] : perItemOf(inAckOrder, successes);
  return { retentionSec: settings.retentionSec, entries, perItem };
}

/** The first `successes` outcomes summed by queue and job name, in their order. */
function groupsOf(inAckOrder: readonly Outcome[], successes: number): Group[] {
  const groups: Group[] = [];
  let group: Group | undefined;
  for (let k = 0; k < successes; k++) {
    const o = inAckOrder[k] as Outcome;
    const name = o.ran?.name ?? "";
    if (!group || group.name !== name || group.queue !== o.job.queue) {
      group = newGroup(name, o.job.queue);
      // A store at the length, not push(): an empty array holds small integers until its first store,
      // and an inlined push optimized with both kinds seen deoptimizes on that branch ("not a Smi").
      groups[groups.length] = group;
    }
    group.entries++;
    if (!o.ran) continue;
    const ms = msText(o.ran.durationMs);
    group.ms += ms;
    (group.durations[bucketOfWhole(ms) - 1] as number)++;
    if (o.ran.waitMs === undefined) continue;
    const wait = msText(o.ran.waitMs);
    group.waitMs += wait;
    (group.waits[bucketOfWhole(wait) - 1] as number)++;
  }
  return groups;
}

function newGroup(name: string, queue: string): Group {
  const durations = new Array<number>(BUCKET_COUNT).fill(0);
  const waits = new Array<number>(BUCKET_COUNT).fill(0);
  return { name, queue, entries: 0, ms: 0, waitMs: 0, durations, waits };
}

function entryOf(g: Group): MetricsTrailer["entries"][number] {
  return {
    name: g.name,
    queue: g.queue,
    entries: g.entries,
    ms: g.ms,
    waitMs: g.waitMs,
    durations: bucketsText(g.durations),
    waits: bucketsText(g.waits),
  };
}

/** Each other outcome's name ('' when it did not run), run time and wait ('' unknown). */
function perItemOf(inAckOrder: readonly Outcome[], successes: number): MetricsTrailer["perItem"][number][] {
  const perItem: MetricsTrailer["perItem"][number][] = [];
  for (let k = successes; k < inAckOrder.length; k++) {
    const { ran } = inAckOrder[k] as Outcome;
    perItem.push(
      ran
        ? {
            name: ran.name,
            ms: String(msText(ran.durationMs)),
            waitMs: ran.waitMs === undefined ? "" : String(msText(ran.waitMs)),
          }
        : { name: "", ms: "", waitMs: "" },
    );
  }
  return perItem;
}
