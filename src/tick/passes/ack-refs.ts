// Naming jobs in acks by reference (lib/tick/ack-jobs.lua): a job over REF_MIN
// bytes travels as "#" + the SHA-1 of its text, so an ack's size does not
// grow with its jobs; a failed one carries only the fields to set. A job read
// with U+FFFD travels as "~" + the SHA-1 of its text as read: its stored bytes
// may not be valid UTF-8 (another client's push), and then its text names
// nothing in Redis, where Lua reads the bytes as the client did
// (lib/common/utf8-as-read.lua) to find it.
import { encodeValue } from "../../job/json-splice.js";
import { utf8Bytes } from "../../job/size.js";
import type { FetchedJob } from "./fetch.js";
import { sha1Hex } from "../../sha1.js";

/** lib/tick/ack-jobs.lua's REF_MIN: the bytes past which a job may be named by reference. */
export const REF_MIN = 1024;

/** A text Lua would read as a reference must itself be named by one. */
const REF_SHAPE = /^[#~][0-9a-fA-F]{40}$/;

/** A UTF-16 unit takes at most 3 bytes of UTF-8: a text this short is never over REF_MIN, and is not counted. */
const SURELY_SMALL = Math.floor(REF_MIN / 3);

/** Whether a text has a reference's shape; a JSON job (most) fails at its first character, with no regex run. */
const refShaped = (raw: string) =>
  raw.length === 41 && (raw.charCodeAt(0) === 0x23 || raw.charCodeAt(0) === 0x7e) && REF_SHAPE.test(raw);

function namedByRef(raw: string): boolean {
  if (raw.length <= SURELY_SMALL) return refShaped(raw);
  return raw.length > REF_MIN || refShaped(raw) || utf8Bytes(raw) > REF_MIN;
}

/**
 * Names by reference the jobs of these outcomes that an ack must so name: most acks name none, and
 * are checked in one loop with no array of their jobs made (bench/client-instructions.ts counts the
 * difference), and answer no promise: a step that awaited one went out only after its fill's jobs ran.
 */
export function nameJobsByRefOf(outcomes: readonly { job: FetchedJob }[]): Promise<void> | undefined {
  for (let k = 0; k < outcomes.length; k++) {
    const { job } = outcomes[k]!;
    if (job.ref === undefined && (job.replaced === true || namedByRef(job.raw)))
      return nameJobsByRef(outcomes.map((o) => o.job));
  }
}

/**
 * Gives each job an ack names by reference its `ref`, once: "~" + SHA-1 for a job read with U+FFFD, "#" + SHA-1
 * for a large one. Acks and solo records (lib/tick/run-solo.lua) then name it by that.
 */
export async function nameJobsByRef(jobs: FetchedJob[]): Promise<void> {
  // `replaced` was found once a fetched group (readFetched): a check a job cost some 60 ns.
  const named = jobs.filter((job) => job.ref === undefined && (job.replaced === true || namedByRef(job.raw)));
  // Most acks name no job by reference: no promise per job for them.
  if (named.length === 0) return;
  await Promise.all(
    named.map(async (job) => {
      job.ref = `${job.replaced === true ? "~" : "#"}${await sha1Hex(job.raw)}`;
    }),
  );
}

/**
 * The patch lib/tick/ack-jobs.lua applies to a job named by reference: field name,
 * value as JSON text, in the order spliceFields sets them; without fields
 * (a job that is not a JSON object), the reason its dead entry gives.
 */
export function patchOf(fields: Record<string, unknown> | undefined, reason: string): string {
  if (!fields) return JSON.stringify(["", reason]);
  return JSON.stringify(Object.entries(fields).flatMap(([name, value]) => [name, encodeValue(value)]));
}
