// One call of page.lua: a stretch of one queue or sorted set, from a cursor.
// The listing, retryAll and deleteAll all walk jobs this way.
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";

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
  const [at = "", jid = "", near = "", nearJid = ""] = request.cursor ?? [];
  const reply = await runCall(
    runtime,
    protocol.page,
    { set: runtime.prefix + request.key },
    {
      kind: request.sorted ? "z" : "l",
      order: request.asc ? "asc" : "desc",
      limit: request.limit,
      budget: PAGE_BUDGET,
      name: request.name,
      queue: request.queue,
      cursor: { at, jid, near, nearJid },
    },
  );
  const entries: PageEntry[] = reply.entries.map((e) => ({ raw: e.job, where: e.where }));
  return { entries, next: reply.cursor.length > 0 ? reply.cursor : null, size: reply.size, examined: reply.examined };
}
