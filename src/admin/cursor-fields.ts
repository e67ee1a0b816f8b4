// The fields a cursor hands to page.lua, checked before they reach it: a
// cursor is opaque but not signed, and page.lua does arithmetic on its
// numbers, so a forged one must be a BAD_CURSOR (400), not a script error
// that reads as a Redis failure (503).
import { TickqError } from "../errors.js";

const INTEGER = /^-?\d{1,15}$/;
// A score as ZRANGE … WITHSCORES writes it (and ZCOUNT reads it back).
const SCORE = /^(-?inf|-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?)$/i;

function malformed(): TickqError {
  return new TickqError("BAD_CURSOR", "cursor is malformed: pass back the `cursor` a page answered, unchanged");
}

/** Sorted sets: B's score, jid and offset among the entries of its score. */
export function checkSortedFields(fields: string[]): string[] {
  const [score, , offset] = fields;
  if (fields.length !== 3 || !SCORE.test(score!) || !INTEGER.test(offset!) || Number(offset) < 0) throw malformed();
  return fields;
}

/** Queues: B's distance and jid, A's distance and jid (A's may be '' at the start). */
export function checkQueueFields(fields: string[]): string[] {
  const [b, , a] = fields;
  if (fields.length !== 4 || !INTEGER.test(b!) || Number(b) < 0 || !INTEGER.test(a!)) throw malformed();
  return fields;
}
