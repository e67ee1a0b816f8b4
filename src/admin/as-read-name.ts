// Naming a job the jobs API moves or cancels when its text as read names
// nothing in Redis. A job whose stored bytes are not valid UTF-8 (another
// client's push) is read with U+FFFD in place of the bad bytes; it goes to
// move.lua and cancel.lua as "~" + the SHA-1 of its text as read, with where
// it was seen, and Lua finds its stored bytes there (lib/admin/find-as-read.lua).
// A plain job is named by its text, as before.
import { encodeValue } from "../job/json-splice.js";
import { REPLACED } from "../protocol/define.js";
import { sha1Hex } from "../sha1.js";
import type { JobInfo } from "./types.js";

/** A text Lua would read as a name (lib/admin/find-as-read.lua's as_read.is_name): it must itself be named by one. */
const NAME_SHAPE = /^~[0-9a-fA-F]{40}$/;

/** Whether `raw` is named by its text as read: it holds U+FFFD, or is shaped like such a name. */
export function namedAsRead(raw: string): boolean {
  return raw.includes(REPLACED) || (raw.length === 41 && raw.charCodeAt(0) === 0x7e && NAME_SHAPE.test(raw));
}

/** "~" + the SHA-1 of the text as read. */
export const asReadName = async (raw: string): Promise<string> => `~${await sha1Hex(raw)}`;

/** The fields Lua sets in the stored bytes (as_read.patched): name, value as JSON text, in order; "" for none. */
export function fieldsPatch(fields: Record<string, unknown> | undefined): string {
  if (!fields) return "";
  return JSON.stringify(Object.entries(fields).flatMap(([name, value]) => [name, encodeValue(value)]));
}

/** Why a job read with U+FFFD in a priority or group set may be missed: its stored bytes may not be valid UTF-8. */
export function unnamedNote(found: JobInfo): string {
  if (found.state !== "queued" || found.position !== undefined || !namedAsRead(found.raw)) return "";
  return " (it was read with U+FFFD and waits in a priority or group set: if its stored bytes are not valid UTF-8, it is found only by them; remove it with a client that reads bytes, such as redis-cli)";
}
