// An ordered id's cancelled record (lib/ordered/cancel-ids.lua writes it to
// the `cancelled` history, job-shaped: class, jid, queue "", args [id,
// payloads], tickq_ordered { fence?, scores, failures? }) and the
// `cancelled` event made of it: the same fields whether the cancelling
// process read the record from its reply or the tick rebuilt it from the
// run it held.
import type { CancelledFrom } from "../admin/types.js";
import type { CancelledEvent } from "../tick/events.js";
import type { JobPayload } from "../job/payload.js";
import type { OrderedFetched } from "./work.js";

/** An ordered id's cancelled record, as its `cancelled` event carries it. */
export interface OrderedCancelled {
  /** The ordered job's name. */
  name: string;
  /** The id. */
  id: string;
  /** The cancelled run's fence (`from: "running"`); absent for payloads that never ran. */
  fence?: number;
  /** The payloads the record took, lowest score first. */
  payloads: unknown[];
  /** Their scores. */
  scores: number[];
}

declare module "../tick/events.js" {
  interface CancelledEvent {
    /** An ordered id's cancel only: what its record holds. */
    ordered?: OrderedCancelled;
  }
}

/** A cancelled run's record jid; lib/ordered/cancel-ids.lua's ordered_run_jid says the same. */
export const orderedRunJid = (name: string, fence: number | string): string => `o-${fence}-${name}`;

/** What `tickq_ordered` holds in a cancelled ordered record. */
interface OrderedPart {
  fence?: number;
  scores?: number[];
  failures?: number;
}

/** The `cancelled` event of a record as the script wrote it; undefined for text that is not one. */
export function recordEvent(text: string): CancelledEvent | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { tickq_cancelled_from: from, ...payload } = parsed as JobPayload & {
    tickq_cancelled_from?: CancelledFrom;
    tickq_ordered?: OrderedPart;
  };
  const [id, payloads] = Array.isArray(payload.args) ? payload.args : [];
  if (typeof id !== "string" || !Array.isArray(payloads)) return undefined;
  return eventOf(payload, from ?? "queued", id, payloads);
}

/** The `cancelled` event of a run a tick held and its ack settled as cancelled. */
export function runEvent(item: OrderedFetched): CancelledEvent {
  const payloads = item.payloads.map(parsed);
  const ordered: OrderedPart = { fence: item.fence, scores: item.scores };
  if (item.failures > 0) ordered.failures = item.failures;
  const payload: JobPayload = {
    class: item.name,
    jid: orderedRunJid(item.name, item.fence),
    queue: "",
    args: [item.id, payloads],
    retry: false,
    tickq_ordered: ordered,
  };
  return eventOf(payload, "running", item.id, payloads);
}

/** A payload as stored, parsed; its text when another client stored one that is not JSON (an event must never throw in the tick). */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function eventOf(payload: JobPayload, from: CancelledFrom, id: string, payloads: unknown[]): CancelledEvent {
  const part = (payload.tickq_ordered ?? {}) as OrderedPart;
  const ordered: OrderedCancelled = {
    name: payload.class,
    id,
    payloads,
    scores: Array.isArray(part.scores) ? part.scores.map(Number) : [],
  };
  if (typeof part.fence === "number") ordered.fence = part.fence;
  return {
    jid: payload.jid,
    name: payload.class,
    queue: "",
    args: payload.args,
    attempt: (typeof part.failures === "number" ? part.failures : 0) + 1,
    payload,
    from,
    ordered,
  };
}
