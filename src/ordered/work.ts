// Ordered ids as a tick carries them: read from what lib/ordered/fetch-ids.lua
// answers inside begin and step, run beside plain jobs in the pipeline, and
// settled by lib/ordered/ack-ids.lua (see its header for what each kind does).
import type { Outcome } from "../tick/passes/ack.js";
import type { FetchedJob } from "../tick/passes/fetch.js";

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

export type OrderedOutcome =
  | { kind: "succeeded"; item: OrderedFetched }
  | { kind: "retry"; item: OrderedFetched; delayMs: number }
  /** `entry`: the dead entry's JSON up to its payloads, which Lua appends as stored. */
  | { kind: "dead"; item: OrderedFetched; entry: string; handlerFailed: boolean }
  | { kind: "unstarted"; item: OrderedFetched }
  | { kind: "interrupted"; item: OrderedFetched }
  | { kind: "inDoubt"; item: OrderedFetched }
  /** Cancelled (tq.jobs.cancelOrdered) before it started or while it ran: recorded cancelled. */
  | { kind: "cancelled"; item: OrderedFetched };

/** What the tick's pipeline runs and settles: plain jobs and ordered ids. */
export type Work = FetchedJob | OrderedFetched;
export type WorkOutcome = Outcome | OrderedOutcome;

export const isOrdered = (w: Work): w is OrderedFetched => "fence" in w;
const isOrderedOutcome = (o: WorkOutcome): o is OrderedOutcome => "item" in o;

export function interruptedOf(w: Work): WorkOutcome {
  return isOrdered(w) ? { kind: "interrupted", item: w } : { kind: "interrupted", job: w };
}

export function splitOutcomes(outcomes: WorkOutcome[]): { plain: Outcome[]; ordered: OrderedOutcome[] } {
  const plain: Outcome[] = [];
  const ordered: OrderedOutcome[] = [];
  for (const o of outcomes) {
    if (isOrderedOutcome(o)) ordered.push(o);
    else plain.push(o);
  }
  return { plain, ordered };
}

/** lib/ordered/fetch-ids.lua's groups as src/protocol/sections.ts decodes them. */
export interface OrderedGroup {
  name: string;
  first: number;
  ids: string[];
  payloads: string[];
  scores: number[];
  counts: number[];
  failures: number[];
  resurrections: number[];
  suspects: number[];
  interruptions: number[];
  doubts: number[];
}

/** Each id of the groups with its payloads (`counts` empty: one each) and counts (empty lists: all 0). */
export function readOrderedFetched(groups: OrderedGroup[] = []): OrderedFetched[] {
  const items: OrderedFetched[] = [];
  for (const group of groups) {
    let at = 0;
    group.ids.forEach((id, k) => {
      const count = group.counts.length > 0 ? (group.counts[k] ?? 0) : 1;
      items.push({
        name: group.name,
        id,
        fence: group.first + k,
        failures: group.failures[k] ?? 0,
        resurrections: group.resurrections[k] ?? 0,
        interruptions: group.interruptions[k] ?? 0,
        doubts: group.doubts[k] ?? 0,
        suspect: group.suspects[k] === 1,
        payloads: group.payloads.slice(at, at + count),
        scores: group.scores.slice(at, at + count),
      });
      at += count;
    });
  }
  return items;
}

const CODES = { retry: "r", dead: "d", unstarted: "q", interrupted: "i", inDoubt: "l", cancelled: "c" } as const;
/** A dead entry for an id that did not run (poison, malformed payloads): not counted as processed. */
const UNRUN = "u";

/**
 * The ordered part of a tick call, last in ARGV: the names this tick
 * serves, its successes grouped by name, then the other outcomes. A tick
 * with no ordered jobs sends none of it.
 */
export function orderedArgs(names: string[], outcomes: OrderedOutcome[] = []): OrderedArgs | undefined {
  if (names.length === 0) return undefined;
  const succeeded = new Map<string, { id: string; fence: number }[]>();
  const others: OrderedArgs["others"] = [];
  for (const o of outcomes) {
    const { name, id, fence } = o.item;
    if (o.kind === "succeeded") {
      const group = succeeded.get(name);
      if (group) group.push({ id, fence });
      else succeeded.set(name, [{ id, fence }]);
      continue;
    }
    const extra = o.kind === "retry" ? String(Math.max(0, Math.round(o.delayMs))) : o.kind === "dead" ? o.entry : "";
    others.push({ code: o.kind === "dead" && !o.handlerFailed ? UNRUN : CODES[o.kind], name, id, fence, extra });
  }
  return { names, succeeded: [...succeeded].map(([name, ids]) => ({ name, ids })), others };
}

export interface OrderedArgs {
  names: string[];
  succeeded: { name: string; ids: { id: string; fence: number }[] }[];
  others: { code: string; name: string; id: string; fence: number; extra: string }[];
}

export function unstartedOf(w: Work): WorkOutcome {
  return isOrdered(w) ? { kind: "unstarted", item: w } : { kind: "unstarted", job: w };
}
