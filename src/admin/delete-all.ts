// tq.jobs.deleteAll: every job of a sorted set, or of one queue, optionally
// by name (and for sorted sets by queue). Unfiltered, it is one UNLINK
// (clear.lua); filtered, bounded stretches (bulk.ts). Jobs in process are
// never touched.
import { TickqError } from "../errors.js";
import { newJid } from "../job/codec.js";
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import { moveMatching } from "./bulk.js";
import { asJsonText } from "./entry.js";
import { checkFilter } from "./list.js";
import { queueParts } from "./queue-parts.js";
import { readState, sourceOf } from "./states.js";
import type { BulkOptions, JobState } from "./types.js";

export async function deleteAllJobs(
  runtime: Runtime,
  stateName: Exclude<JobState, "running">,
  options: BulkOptions = {},
): Promise<number> {
  const state = readState(
    stateName,
    ["queued", "scheduled", "retry", "dead", "succeeded", "cancelled", "expired"] as const,
    "deleteAll",
  );
  const name = checkFilter(options.name, "name");
  const queue = checkFilter(options.queue, "queue");
  if (state === "queued" && !queue)
    throw new TickqError("BAD_ARGS", 'deleteAll("queued") needs `queue`: the queue to empty');
  if (state === "queued") {
    // Every part of the queue: its list, and its priority and group sets (src/order/).
    let deleted = 0;
    for (const part of await queueParts(runtime, queue))
      deleted += await deleteFrom(runtime, part.key, part.sorted, name, "");
    return deleted;
  }
  return deleteFrom(runtime, sourceOf(state, queue), true, name, queue);
}

/** Every job of `key` (filtered: by name, and in a sorted set of every queue by queue): how many. */
function deleteFrom(runtime: Runtime, key: string, sorted: boolean, name: string, queue: string): Promise<number> {
  if (!name && !queue) {
    return runCall(
      runtime,
      protocol.clear,
      { set: runtime.prefix + key },
      { token: newJid(), keepMs: runtime.replayWindowMs },
    );
  }
  return moveMatching(runtime, { key, sorted, name: asJsonText(name), queue, action: "delete" });
}
