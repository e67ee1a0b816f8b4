// tq.jobs.retryAll: every job of the retry or dead set (or every scheduled
// job), optionally by name or queue, to the tail of its queue as retry
// does. Bounded stretches; jobs a tick moves first are left alone.
import type { Runtime } from "../tick/runtime.js";
import { moveMatching } from "./bulk.js";
import { asJsonText } from "./entry.js";
import { checkFilter } from "./list.js";
import { retriedFields } from "./retried-text.js";
import { SORTED_SETS, readState } from "./states.js";
import type { BulkOptions } from "./types.js";

export async function retryAllJobs(
  runtime: Runtime,
  stateName: "retry" | "dead" | "scheduled",
  options: BulkOptions = {},
): Promise<number> {
  const state = readState(stateName, ["retry", "dead", "scheduled"] as const, "retryAll");
  return moveMatching(runtime, {
    key: SORTED_SETS[state],
    sorted: true,
    name: asJsonText(checkFilter(options.name, "name")),
    queue: checkFilter(options.queue, "queue"),
    action: "push",
    ...(state === "scheduled" ? {} : { fields: retriedFields }),
  });
}
