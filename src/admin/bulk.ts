// Walking a whole queue or sorted set and moving what matches, for
// retryAll and deleteAll with filters: page.lua reads a stretch (oldest
// first), move.lua moves that stretch by exact text, and the cursor — the
// next job, not a rank — survives the moves. It stops after as many jobs as
// the set held when it began, so jobs that keep arriving (a retried job
// failing again) cannot keep it going.
import type { Runtime } from "../tick/runtime.js";
import { moveJobs, type MoveEntry } from "./move.js";
import { readPage } from "./page.js";

const STRETCH = 500;

export interface BulkMove {
  key: string;
  sorted: boolean;
  /** Filters: name as written in JSON, queue name ('' any). */
  name: string;
  queue: string;
  action: "push" | "delete";
  /** Fields to set in what is pushed (a retry's retry_count). */
  fields?: (raw: string) => Record<string, unknown> | undefined;
}

/** How many jobs moved. */
export async function moveMatching(runtime: Runtime, bulk: BulkMove): Promise<number> {
  let cursor: string[] | null = null;
  let moved = 0;
  let seen = 0;
  let total = Number.POSITIVE_INFINITY;
  do {
    const page = await readPage(runtime, {
      key: bulk.key,
      sorted: bulk.sorted,
      asc: true,
      limit: STRETCH,
      name: bulk.name,
      queue: bulk.queue,
      cursor,
    });
    if (total === Number.POSITIVE_INFINITY) total = page.size;
    const entries: MoveEntry[] = page.entries.map((e) => ({
      from: bulk.key,
      raw: e.raw,
      action: bulk.action,
      ...(bulk.fields ? { fields: bulk.fields(e.raw) } : {}),
      ...(bulk.sorted ? { score: e.where } : { hint: Number(e.where) }),
    }));
    if (entries.length > 0) moved += [...(await moveJobs(runtime, entries))].filter((f) => f === "1").length;
    seen += Math.max(page.examined, 1);
    cursor = page.next;
  } while (cursor && seen < total);
  return moved;
}
