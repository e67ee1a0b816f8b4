// Outcomes of executed jobs, encoded for lib/ack.lua (see its header for
// what each kind does in Redis).
import { uniqueSlotOf } from "../flow/descriptor.js";
import type { JobPayload } from "../types.js";
import type { FetchedJob } from "./fetch.js";

// `payload`, `error` and `reason` ride along for the events and the failure
// log line (src/events.ts); Redis never sees them.
export type Outcome =
  | { kind: "succeeded"; job: FetchedJob; payload?: JobPayload }
  | { kind: "retry"; job: FetchedJob; updated: string; delaySec: number; payload?: JobPayload; error?: unknown }
  | { kind: "dead"; job: FetchedJob; updated: string; handlerFailed: boolean; payload?: JobPayload; error?: unknown; reason?: string }
  /** Failed out of retries with `dead: false`: dropped, counted as failed. */
  | { kind: "discarded"; job: FetchedJob; payload?: JobPayload; error?: unknown }
  | { kind: "unstarted"; job: FetchedJob }
  | { kind: "interrupted"; job: FetchedJob };

const CODES = { retry: "r", dead: "d", discarded: "x", unstarted: "q", interrupted: "i" } as const;

type Settled = Exclude<Outcome, { kind: "succeeded" }>;
const putBack = (o: Outcome) => o.kind === "unstarted" || o.kind === "interrupted";
const settled = (o: Outcome): o is Settled => o.kind !== "succeeded";

/** A group of successes: of a queue, or of a queue and a name for flow jobs of one unique key (with their keys). */
interface SuccessGroup {
  queue: string;
  /** Set for a group of flow jobs of one unique key: their name, escaped. */
  name?: string;
  outcomes: Outcome[];
  keys: string[];
}

/** The outcomes grouped as lib/ack.lua takes them: successes by queue (and name), then the others in their order. */
function entries(outcomes: Outcome[]): { succeeded: SuccessGroup[]; ordered: Settled[] } {
  const groups = new Map<string, SuccessGroup>();
  for (const o of outcomes) {
    if (o.kind !== "succeeded") continue;
    const slot = uniqueSlotOf(o.job.raw);
    const id = slot === undefined ? `q ${o.job.queue}` : `f ${slot.name} ${o.job.queue}`;
    let group = groups.get(id);
    if (!group) {
      group = { queue: o.job.queue, name: slot?.name, outcomes: [], keys: [] };
      groups.set(id, group);
    }
    group.outcomes.push(o);
    if (slot) group.keys.push(slot.key);
  }
  // Jobs put back are pushed one by one onto the head of their queue: the
  // last pushed is fetched first, so they go in reverse to keep their order.
  const rest = outcomes.filter(settled);
  return { succeeded: [...groups.values()], ordered: [...rest.filter((o) => !putBack(o)), ...rest.filter(putBack).reverse()] };
}

/** The outcomes in the order lib/ack.lua numbers its entries (its "missed" list names them by that number, from 1). */
export function ackOrder(outcomes: Outcome[]): Outcome[] {
  const { succeeded, ordered } = entries(outcomes);
  return [...succeeded.flatMap((g) => g.outcomes), ...ordered];
}

/** lib/ack.lua's arguments: successes grouped by queue (flow jobs of one unique key by queue and name, with their keys), then the other outcomes. */
export function ackArgs(outcomes: Outcome[]): (string | number)[] {
  const { succeeded, ordered } = entries(outcomes);
  const args: (string | number)[] = [succeeded.length];
  for (const g of succeeded) {
    if (g.name === undefined) {
      args.push(g.queue, g.outcomes.length);
      for (const o of g.outcomes) args.push(o.job.raw);
    } else {
      args.push(g.queue, -g.outcomes.length, g.name);
      g.outcomes.forEach((o, k) => args.push(o.job.raw, g.keys[k]!));
    }
  }
  args.push(ordered.length);
  for (const o of ordered) {
    const updated = o.kind === "retry" || o.kind === "dead" ? o.updated : "";
    const delay = o.kind === "retry" ? o.delaySec : 0;
    args.push(CODES[o.kind], o.job.queue, o.job.raw, updated, delay);
  }
  return args;
}
