// A job in the shape tickq's own enqueue writes, read without JSON.parse of the whole text:
//   {"class":"C","args":[…],"jid":"J","queue":"Q","retry":R,"created_at":N,"enqueued_at":N}
// JSON.parse of such a job was over a third of a no-op job's main-thread work in the tick process
// (it builds the object key by key and reads each fractional number through strtod): one regular
// expression finds the fields, JSON.parse reads `args` alone, and the two times are read here
// (bench/job-decode.ts counts the difference). Anything else — another field, another order, an
// escape or a control character in a string, whitespace, an exponent — answers undefined, and the
// caller parses the text as before. What it answers is what JSON.parse answers: the same keys in
// the same order, the same strings and the same numbers. The price: a job the tick has retried
// (fields appended) fails the expression only at its end, after a walk over its args, and costs
// more than JSON.parse alone (`bench/job-decode.ts --shape retried --args-bytes 1000`); first
// runs, which this serves, are most jobs.
import type { JobPayload } from "./payload.js";

// Strings with no escape and no control character (JSON.parse refuses a raw one); decimals of at
// most 15 digits, no sign, no exponent; args from `[` to the `]` the strict tail follows.
const SHAPE =
  /^\{"class":"([^"\\\x00-\x1f]+)","args":(\[[\s\S]*?\]),"jid":"([^"\\\x00-\x1f]*)","queue":"([^"\\\x00-\x1f]*)","retry":(true|false|0|[1-9]\d{0,14}),"created_at":(0|[1-9]\d*)(?:\.(\d+))?,"enqueued_at":(0|[1-9]\d*)(?:\.(\d+))?\}$/;

/** Exact powers of ten, as many as a 15-digit decimal's fraction can need. */
const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
/** The most digits a decimal may have for its digits, read as one integer, to be an exact double. */
const MAX_DIGITS = 15;

/** The payload JSON.parse would make of `raw`, when `raw` is in tickq's own shape; else undefined. */
export function readOwnShape(raw: string): JobPayload | undefined {
  const m = SHAPE.exec(raw);
  if (m === null) return undefined;
  const createdAt = decimal(m[6]!, m[7]);
  const enqueuedAt = decimal(m[8]!, m[9]);
  if (createdAt === undefined || enqueuedAt === undefined) return undefined;
  // The shortest args the strict tail follows. Should args hold `,"jid":"` themselves (an object
  // with a jid key), a shorter text may come first: then it is no whole JSON value and JSON.parse
  // throws, or it is one and, starting where args start, it is args whole.
  let args: unknown;
  try {
    args = JSON.parse(m[2]!);
  } catch {
    return undefined;
  }
  const retry = m[5]!;
  return {
    class: m[1]!,
    args: args as unknown[],
    jid: m[3]!,
    queue: m[4]!,
    retry: retry === "true" ? true : retry === "false" ? false : Number(retry),
    created_at: createdAt,
    enqueued_at: enqueuedAt,
  };
}

/**
 * A decimal the shape matched, as JSON.parse reads it: its digits as one integer over a power of
 * ten, both exact doubles, so the one division rounds correctly. Undefined past MAX_DIGITS. Whole
 * and fraction are read by Number (digits alone: no sign, no exponent), not char by char.
 */
function decimal(whole: string, fraction: string | undefined): number | undefined {
  if (fraction === undefined) return whole.length > MAX_DIGITS ? undefined : Number(whole);
  const digits = fraction.length;
  if (whole.length + digits > MAX_DIGITS) return undefined;
  return (Number(whole) * POW10[digits]! + Number(fraction)) / POW10[digits]!;
}
