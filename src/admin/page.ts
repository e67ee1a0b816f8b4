// One call of page.lua: a stretch of one queue or sorted set, from a cursor.
// The listing, retryAll and deleteAll all walk jobs this way.
import { asArray, asNumber } from "../redis/adapter.js";
import type { Runtime } from "../tick/runtime.js";
import { scripts } from "../lua/index.js";

/** Entries page.lua looks at per call, at most: a few milliseconds of Redis. */
export const PAGE_BUDGET = 5_000;

export interface PageRequest {
  /** The key under the prefix: "dead", "queue:default"… */
  key: string;
  sorted: boolean;
  /** Oldest (or soonest due, or nearest the head) first. */
  asc: boolean;
  limit: number;
  /** Job name as written in JSON ('' any). */
  name: string;
  /** Queue name ('' any). */
  queue: string;
  /** page.lua's cursor fields; null to start. */
  cursor: string[] | null;
}

export interface PageEntry {
  raw: string;
  /** Sorted set: the score (epoch seconds, as Redis wrote it); queue: distance from the head. */
  where: string;
}

export interface PageReply {
  entries: PageEntry[];
  /** null at the end. */
  next: string[] | null;
  size: number;
  /** Entries looked at, matching or not. */
  examined: number;
}

export async function readPage(runtime: Runtime, request: PageRequest): Promise<PageReply> {
  const cursor = request.cursor ?? ["", "", "", ""];
  const args = [request.sorted ? "z" : "l", request.asc ? "asc" : "desc", request.limit, PAGE_BUDGET, request.name, request.queue, ...cursor];
  while (args.length < 10) args.push("");
  const reply = asArray(await runtime.run(scripts.page, [runtime.prefix + request.key], args, { count: 0 }), "page");
  const flat = asArray(reply[0] ?? [], "page");
  const entries: PageEntry[] = [];
  for (let i = 0; i < flat.length; i += 2) entries.push({ raw: String(flat[i]), where: String(flat[i + 1]) });
  const next = asArray(reply[1] ?? [], "page").map(String);
  return { entries, next: next.length > 0 ? next : null, size: asNumber(reply[2]), examined: asNumber(reply[3]) };
}
