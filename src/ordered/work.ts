// Ordered ids as a tick carries them: read from what lib/ordered/fetch-ids.lua
// answers inside begin and step, run beside plain jobs in the pipeline, and
// settled by lib/ordered/ack-ids.lua (see its header for what each kind does).
import type { Outcome } from "../tick/passes/ack.js";
import type { FetchedJob } from "../tick/passes/fetch.js";
import { asArray, asNumber } from "../redis/adapter.js";
import type { RedisReply } from "../types.js";

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
  | { kind: "inDoubt"; item: OrderedFetched };

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

/** Reads lib/ordered/fetch-ids.lua's groups: name, first fence, {ids}, {payloads}, {scores}, {counts}, {failures}, {resurrections}, {suspects}, {interruptions}, {doubts}. */
export function readOrderedFetched(reply: RedisReply | undefined): OrderedFetched[] {
  const items: OrderedFetched[] = [];
  for (const group of asArray(reply ?? [], "ordered fetch")) {
    const [name, first, ids, payloads, scores, counts, failures, resurrections, suspects, interruptions, doubts] = asArray(group, "ordered fetch");
    const texts = asArray(payloads ?? [], "ordered fetch");
    const values = asArray(scores ?? [], "ordered fetch");
    const perId = asArray(counts ?? [], "ordered fetch");
    const failed = asArray(failures ?? [], "ordered fetch");
    const died = asArray(resurrections ?? [], "ordered fetch");
    const suspected = asArray(suspects ?? [], "ordered fetch");
    const overran = asArray(interruptions ?? [], "ordered fetch");
    const doubted = asArray(doubts ?? [], "ordered fetch");
    let at = 0;
    asArray(ids ?? [], "ordered fetch").forEach((id, k) => {
      const count = perId.length > 0 ? asNumber(perId[k]) : 1;
      items.push({
        name: String(name),
        id: String(id),
        fence: asNumber(first) + k,
        failures: asNumber(failed[k]),
        resurrections: asNumber(died[k]),
        interruptions: asNumber(overran[k]),
        doubts: asNumber(doubted[k]),
        suspect: asNumber(suspected[k]) === 1,
        payloads: texts.slice(at, at + count).map(String),
        scores: values.slice(at, at + count).map(asNumber),
      });
      at += count;
    });
  }
  return items;
}

const CODES = { retry: "r", dead: "d", unstarted: "q", interrupted: "i", inDoubt: "l" } as const;
/** A dead entry for an id that did not run (poison, malformed payloads): not counted as processed. */
const UNRUN = "u";

/**
 * The ordered part of a tick call's arguments, last in ARGV: the names
 * this tick serves, its successes grouped by name, then the other
 * outcomes. A tick with no ordered jobs sends none of it.
 */
export function orderedArgs(names: string[], outcomes: OrderedOutcome[] = []): (string | number)[] {
  if (names.length === 0) return [];
  const succeeded = new Map<string, (string | number)[]>();
  const others: (string | number)[] = [];
  let count = 0;
  for (const o of outcomes) {
    const { name, id, fence } = o.item;
    if (o.kind === "succeeded") {
      const group = succeeded.get(name);
      if (group) group.push(id, fence);
      else succeeded.set(name, [id, fence]);
      continue;
    }
    const extra = o.kind === "retry" ? Math.max(0, Math.round(o.delayMs)) : o.kind === "dead" ? o.entry : "";
    others.push(o.kind === "dead" && !o.handlerFailed ? UNRUN : CODES[o.kind], name, id, fence, extra);
    count++;
  }
  const args: (string | number)[] = [names.length, ...names, succeeded.size];
  for (const [name, pairs] of succeeded) args.push(name, pairs.length / 2, ...pairs);
  args.push(count, ...others);
  return args;
}

export function unstartedOf(w: Work): WorkOutcome {
  return isOrdered(w) ? { kind: "unstarted", item: w } : { kind: "unstarted", job: w };
}
