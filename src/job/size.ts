// How large a job may be, and how many jobs one enqueue call carries. A job
// is refused at enqueue (JOB_TOO_LARGE) rather than stored where a tick
// could fetch it but no runtime could carry it: the default, 1 MiB, is a
// tenth of Upstash's 10 MB request limit and leaves a batch of such jobs
// room in a Worker's 128 MB. Calls are split by bytes as well as by count,
// so a bulk enqueue never builds a request Upstash would refuse.
import { TickqError } from "../errors.js";

export const DEFAULT_MAX_JOB_BYTES = 1024 * 1024;

/**
 * Bytes of job text one enqueue call carries at most (one larger job still
 * goes alone): well under Upstash's 10 MB even once JSON escapes inflate it.
 */
export const CALL_BYTES = 4 * 1024 * 1024;

/** Any UTF-16 unit past ASCII: a text without one is as many UTF-8 bytes as units. */
const NON_ASCII = /[^\x00-\x7f]/;
// Called, not read off each text: every caller's strings (flat, joined, sliced, internalized) meet at
// one `text.charCodeAt` load, whose feedback goes megamorphic, and optimized code then looked the
// method up generically once a character, some 120 instructions each (bench/ordered-instructions.ts).
const charCodeAt = String.prototype.charCodeAt;

/** The UTF-8 length of `text` (a lone surrogate counts 3 bytes, as TextEncoder writes U+FFFD). */
export function utf8Bytes(text: string): number {
  // Counted, not encoded: no buffer a call (a workflow step measures each result). ASCII (most JSON)
  // is found by one native scan; past it a lone surrogate counts 3, as TextEncoder writes it (U+FFFD); a pair 4.
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = charCodeAt.call(text, i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit < 0xdc00 && (charCodeAt.call(text, i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/**
 * Throws JOB_TOO_LARGE when the stored text of a job is over `maxBytes`; returns its size. `what`
 * names it in the error; a function is called only for an error.
 */
export function checkJobSize(text: string, maxBytes: number, what: string | (() => string)): number {
  // Each UTF-16 unit is at least one UTF-8 byte: a text longer than the limit in units is over it.
  const bytes = text.length > maxBytes ? text.length : utf8Bytes(text);
  if (bytes > maxBytes) {
    throw new TickqError(
      "JOB_TOO_LARGE",
      `${typeof what === "string" ? what : what()} is ${bytes} bytes as stored, over the limit of ${maxBytes} bytes (maxJobBytes): store large data elsewhere (a blob store, a database row) and enqueue its key`,
    );
  }
  return bytes;
}

/** Splits items into runs of at most `maxCount` items and, past the first item of a run, `maxBytes` bytes. */
export function chunksOf<T>(items: T[], sizeOf: (item: T) => number, maxCount: number, maxBytes = CALL_BYTES): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = sizeOf(item);
    if (current.length > 0 && (current.length >= maxCount || bytes + size > maxBytes)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
