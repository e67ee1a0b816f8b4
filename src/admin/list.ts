// tq.jobs.list: one page of the jobs in a state. Queues and sorted sets are
// read by page.lua, a bounded stretch per call, from a cursor that names
// the next job rather than its rank, so jobs added or removed meanwhile
// cause no repeat and no gap. `queued` with no queue walks every queue by
// name. `running` reads the ticks' in-process lists, which are short.
import { TickqError } from "../errors.js";
import { isCleanName } from "../names.js";
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import { decodeCursor, encodeCursor, type CursorScope } from "./cursor.js";
import { checkQueueFields, checkSortedFields } from "./cursor-fields.js";
import { asJsonText, jobInfo, scoreMs } from "./entry.js";
import { readPage } from "./page.js";
import { withResult } from "./kept-result.js";
import { readAwaited } from "../results/awaited.js";
import { listQueues } from "./queue-list.js";
import { isPartTag, LIST_TAG, queueParts } from "./queue-parts.js";
import { HISTORY_STATES, JOB_STATES, SORTED_SETS, isSorted, readState } from "./states.js";
import type { JobInfo, JobPage, JobState, ListOptions } from "./types.js";

/** page.lua calls one list() may make to fill a filtered page. */
const MAX_CALLS = 5;
const MAX_LIMIT = 1_000;
/** In-process jobs read at most (a tick holds 1.5 batches of ≤ 1,000). */
const MAX_RUNNING = 10_000;

export function checkFilter(value: string | undefined, what: string): string {
  if (value === undefined || value === "") return "";
  if (!isCleanName(value))
    throw new TickqError("BAD_ARGS", `${what} must be a name without spaces, got ${JSON.stringify(value)}`);
  return value;
}

export async function listJobs(runtime: Runtime, stateName: JobState, options: ListOptions = {}): Promise<JobPage> {
  const state = readState(stateName, JOB_STATES, "list");
  const limit = options.limit ?? 25;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new TickqError("BAD_ARGS", `list: limit must be an integer from 1 to ${MAX_LIMIT}, got ${String(limit)}`);
  }
  const order = options.order ?? (state === "dead" || HISTORY_STATES.includes(state) ? "newest" : "oldest");
  if (order !== "oldest" && order !== "newest")
    throw new TickqError("BAD_ARGS", `list: order must be "oldest" or "newest", got ${JSON.stringify(order)}`);
  const scope: CursorScope = {
    state,
    order,
    queue: checkFilter(options.queue, "queue"),
    name: checkFilter(options.name, "name"),
  };
  const fields = options.cursor ? decodeCursor(options.cursor, scope) : null;
  if (state === "running") return listRunning(runtime, scope, limit, fields);
  if (isSorted(state)) return listSorted(runtime, scope, limit, fields);
  return listQueued(runtime, scope, limit, fields);
}

async function listSorted(
  runtime: Runtime,
  scope: CursorScope,
  limit: number,
  fields: string[] | null,
): Promise<JobPage> {
  const state = scope.state as keyof typeof SORTED_SETS;
  const jobs: JobInfo[] = [];
  let cursor = fields ? checkSortedFields(fields) : null;
  for (let calls = 0; calls < MAX_CALLS && jobs.length < limit; calls++) {
    const page = await readPage(runtime, {
      key: SORTED_SETS[state],
      sorted: true,
      asc: scope.order === "oldest",
      limit: limit - jobs.length,
      name: asJsonText(scope.name),
      queue: scope.queue,
      cursor,
    });
    for (const e of page.entries) jobs.push(withResult(jobInfo(e.raw, { state, queue: "", at: scoreMs(e.where) })));
    cursor = page.next;
    if (!cursor) break;
  }
  return { jobs, cursor: cursor ? encodeCursor(scope, cursor) : null };
}

async function listQueued(
  runtime: Runtime,
  scope: CursorScope,
  limit: number,
  fields: string[] | null,
): Promise<JobPage> {
  // Cursor fields: the queue being read, the part of it (queue-parts.ts), then page.lua's.
  // A cursor of an older version names no part: it was reading the list.
  const names = scope.queue ? [scope.queue] : (await listQueues(runtime)).map((q) => q.name);
  let queue: string | undefined = fields ? fields[0] : names[0];
  const tagged = fields !== null && isPartTag(fields[1]);
  let tag = tagged ? fields[1]! : LIST_TAG;
  let cursor = fields ? fields.slice(tagged ? 2 : 1) : null;
  if (fields && cursor!.length === 0) cursor = null;
  let parts = queue === undefined ? [] : await queueParts(runtime, queue);
  let part = parts.find((p) => p.tag >= tag);
  if (part && part.tag !== tag) cursor = null;
  if (cursor && part) (part.sorted ? checkSortedFields : checkQueueFields)(cursor);
  const jobs: JobInfo[] = [];
  for (let calls = 0; calls < MAX_CALLS && jobs.length < limit && queue !== undefined; calls++) {
    const current: string = queue;
    if (part) {
      const page = await readPage(runtime, {
        key: part.key,
        sorted: part.sorted,
        asc: scope.order === "oldest",
        limit: limit - jobs.length,
        name: asJsonText(scope.name),
        queue: "",
        cursor,
      });
      const sorted = part.sorted;
      for (const e of page.entries)
        jobs.push(
          jobInfo(e.raw, { state: "queued", queue: current, ...(sorted ? {} : { position: Number(e.where) }) }),
        );
      cursor = page.next;
      if (cursor) continue;
      // This part is done: on to the next part of the queue.
      part = parts[parts.indexOf(part) + 1];
      if (part) continue;
    }
    // This queue is done: on to the next by name (a queue added meanwhile is read if it sorts later).
    queue = names.find((n) => n > current);
    parts = queue === undefined ? [] : await queueParts(runtime, queue);
    part = parts[0];
    cursor = null;
  }
  if (queue === undefined || !part) return { jobs, cursor: null };
  tag = part.tag;
  return { jobs, cursor: encodeCursor(scope, [queue, tag, ...(cursor ?? [])]) };
}

async function listRunning(
  runtime: Runtime,
  scope: CursorScope,
  limit: number,
  fields: string[] | null,
): Promise<JobPage> {
  const running = await runCall(runtime, protocol.inflight, { ticks: runtime.keys.ticks }, { limit: MAX_RUNNING });
  const all: JobInfo[] = [];
  for (const { tick, alive, queue, job } of running) {
    const info = jobInfo(job, { state: "running", queue, tick, tickAlive: alive });
    if ((scope.queue === "" || info.queue === scope.queue) && (scope.name === "" || info.name === scope.name))
      all.push(info);
  }
  if (scope.order === "newest") all.reverse();
  // These lists change with every step of a tick: the cursor is an offset.
  const offset = fields ? Number(fields[0]) : 0;
  if (!Number.isInteger(offset) || offset < 0)
    throw new TickqError("BAD_CURSOR", "cursor is malformed: pass back the `cursor` a page answered, unchanged");
  const jobs = all.slice(offset, offset + limit);
  // Each job's last ctx.progress, one read each: a page of running jobs is short (ticks × concurrency).
  await Promise.all(
    jobs.map(async (job) => {
      const { progress } = await readAwaited(runtime, job.jid);
      if (progress !== undefined) job.progress = progress;
    }),
  );
  return { jobs, cursor: offset + limit < all.length ? encodeCursor(scope, [offset + limit]) : null };
}
