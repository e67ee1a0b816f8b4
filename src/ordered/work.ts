// Ordered ids as a tick carries them: read from what lib/ordered/fetch-ids.lua
// answers inside begin and step, run beside plain jobs in the pipeline, and
// settled by lib/ordered/ack-ids.lua (see its header for what each kind does).
import type { MetricsSettings } from "../metrics/settings.js";
import type { ArgOf } from "../protocol/define.js";
import type { ordered } from "../protocol/sections.js";

export interface OrderedFetched {
  name: string;
  id: string;
  /** This execution's fence; with the tick id it is the token that holds the id. */
  fence: number;
  /** Failed runs so far. */
  failures: number;
  /** How many times its tick died while it ran alone. */
  resurrections: number;
  /** How many times a tick's deadline interrupted it (no death: never poison). */
  interruptions: number;
  /** How many times its run was stopped because the tick could not confirm its lease in time. */
  doubts: number;
  /** A dead tick left it behind, maybe running: it runs alone (lib/tick/run-solo.lua). */
  suspect: boolean;
  /** Payload JSON texts, lowest score first, exactly as stored. */
  payloads: string[];
  scores: number[];
}

/** What the tick measured of a run that finished, for the ack's metrics trailer (with metrics on). */
export interface OrderedRun {
  /** Run time on the monotonic clock. */
  durationMs: number;
  /** When the handler started, on Redis' clock as the tick knows it (epoch ms). */
  startMs: number;
}

export type OrderedOutcome = (
  | { kind: "succeeded"; item: OrderedFetched }
  /** `error`: what the handler threw, for its span (src/telemetry/tracing.ts). */
  | { kind: "retry"; item: OrderedFetched; delayMs: number; error?: unknown }
  /** `entry`: the dead entry's JSON up to its payloads, which Lua appends as stored. */
  | { kind: "dead"; item: OrderedFetched; entry: string; handlerFailed: boolean; error?: unknown }
  | { kind: "unstarted"; item: OrderedFetched }
  | { kind: "interrupted"; item: OrderedFetched }
  | { kind: "inDoubt"; item: OrderedFetched }
  /** Cancelled (tq.jobs.cancelOrdered) before it started or while it ran: recorded cancelled. */
  | { kind: "cancelled"; item: OrderedFetched }
) & { ran?: OrderedRun };

export const isOrdered = (w: object): w is OrderedFetched => "fence" in w;
export const isOrderedOutcome = (o: object): o is OrderedOutcome => "item" in o;

/** lib/ordered/fetch-ids.lua's groups as src/protocol/sections.ts decodes them. */
export interface OrderedGroup {
  name: string;
  first: number;
  ids: string[];
  payloads: string[];
  /** As Redis wrote them (a number's text); each execution's are numbers. */
  scores: string[];
  counts: number[];
  failures: number[];
  resurrections: number[];
  suspects: number[];
  interruptions: number[];
  doubts: number[];
}

/**
 * A score as Redis wrote it: a number's text, or "inf" / "-inf" for a score stored infinite (not by
 * tickq, whose scores are finite), which Number alone reads as NaN.
 */
const scoreOf = (text: string | undefined): number =>
  text === "inf" ? Infinity : text === "-inf" ? -Infinity : Number(text);

/** Each id of the groups with its payloads (`counts` empty: one each) and counts (empty lists: all 0). */
export function readOrderedFetched(groups: OrderedGroup[] = []): OrderedFetched[] {
  const items: OrderedFetched[] = [];
  for (const group of groups) {
    const { name, first, ids, payloads, scores, counts, failures, resurrections, interruptions, doubts, suspects } =
      group;
    const single = counts.length === 0;
    let at = 0;
    for (let k = 0; k < ids.length; k++) {
      const count = single ? 1 : (counts[k] ?? 0);
      items.push({
        name,
        id: ids[k]!,
        fence: first + k,
        failures: failures[k] ?? 0,
        resurrections: resurrections[k] ?? 0,
        interruptions: interruptions[k] ?? 0,
        doubts: doubts[k] ?? 0,
        suspect: suspects[k] === 1,
        payloads: count === 1 && at < payloads.length ? [payloads[at]!] : payloads.slice(at, at + count),
        scores: count === 1 && at < scores.length ? [scoreOf(scores[at])] : scores.slice(at, at + count).map(scoreOf),
      });
      at += count;
    }
  }
  return items;
}

const CODES = { retry: "r", dead: "d", unstarted: "q", interrupted: "i", inDoubt: "l", cancelled: "c" } as const;
/** A dead entry for an id that did not run (poison, malformed payloads): not counted as processed. */
const UNRUN = "u";

/**
 * The ordered part of a tick call, last in ARGV: the names this tick
 * serves, its successes grouped by name, then the other outcomes, and with
 * metrics on the runs' measures (lib/metrics/record-ordered-runs.lua). A tick
 * with no ordered jobs sends none of it.
 */
export function orderedArgs(
  names: string[],
  outcomes: OrderedOutcome[] = [],
  metrics?: MetricsSettings,
): OrderedArgs | undefined {
  if (names.length === 0) return undefined;
  // Successes grouped by name in the order names first succeeded (Lua reads them so), in one pass.
  const succeeded: { name: string; ids: { id: string; fence: number }[]; runs: OrderedOutcome[] }[] = [];
  const others: Exclude<OrderedOutcome, { kind: "succeeded" }>[] = [];
  let last: (typeof succeeded)[number] | undefined;
  for (const o of outcomes) {
    if (o.kind !== "succeeded") {
      others.push(o);
      continue;
    }
    const { name, id, fence } = o.item;
    let group = last !== undefined && last.name === name ? last : succeeded.find((g) => g.name === name);
    if (group === undefined) succeeded.push((group = { name, ids: [], runs: [] }));
    group.ids.push({ id, fence });
    if (metrics) group.runs.push(o);
    last = group;
  }
  const items = others.map((o) => {
    const { name, id, fence } = o.item;
    const extra = o.kind === "retry" ? String(Math.max(0, Math.round(o.delayMs))) : o.kind === "dead" ? o.entry : "";
    return { code: o.kind === "dead" && !o.handlerFailed ? UNRUN : CODES[o.kind], name, id, fence, extra };
  });
  const args: OrderedArgs = {
    names,
    succeeded: succeeded.map(({ name, ids }) => ({ name, ids })),
    others: { items },
  };
  if (metrics && outcomes.length > 0) {
    // Successes in ack order, those that measured alike in a row as one entry (runs of them).
    const entries: { runs: number; ms: number; startMs: number }[] = [];
    let entry: (typeof entries)[number] | undefined;
    for (const { runs } of succeeded)
      for (const { ran } of runs) {
        const ms = msOf(ran?.durationMs);
        const startMs = msOf(ran?.startMs);
        if (entry !== undefined && entry.ms === ms && entry.startMs === startMs) entry.runs++;
        else entries.push((entry = { runs: 1, ms, startMs }));
      }
    args.others.metrics = {
      retentionSec: metrics.retentionSec,
      entries,
      perItem: others.map(({ ran }) =>
        ran ? { ms: String(msOf(ran.durationMs)), startMs: String(msOf(ran.startMs)) } : { ms: "", startMs: "" },
      ),
    };
  }
  return args;
}

const msOf = (ms: number | undefined) => Math.max(0, Math.round(ms ?? 0));

/** The ordered part as src/protocol/sections.ts `ordered` declares it. */
export type OrderedArgs = NonNullable<ArgOf<typeof ordered>>;
