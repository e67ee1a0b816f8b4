// Enqueue of a debounced job: its key computed and its options checked with
// the rest of an enqueue (before anything is written), then one debounce.lua
// call per job, which answers the jid of the job that will run.
import { TickqError } from "../errors.js";
import { newJid } from "../job/codec.js";
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { RoundTrips } from "../redis/adapter.js";
import type { BulkJob } from "../job/enqueue-options.js";
import type { JobDefinition } from "../job/definition.js";
import type { Debounce } from "../job/limits.js";

/** What debounce.lua needs of one job besides its JSON. */
export interface DebouncePlan {
  key: string;
  delayMs: number;
  maxDelayMs: number;
}

/** The plan of a job whose definition debounces it, or undefined; options that fight it are refused. */
export function planDebounce(job: BulkJob, definition: JobDefinition<never>): DebouncePlan | undefined {
  const debounce = definition.debounce as Debounce | undefined;
  if (debounce === undefined) return undefined;
  for (const option of ["delayMs", "at", "jid", "unique"] as const) {
    if (job[option] !== undefined)
      throw new TickqError(
        "BAD_ARGS",
        `Job "${job.name}": ${option} does not combine with debounce (the job's debounce sets when it runs and which jid)`,
      );
  }
  let key: unknown;
  try {
    key = debounce.key(job.args);
  } catch (error) {
    throw new TickqError("BAD_ARGS", `Job "${job.name}": debounce.key threw: ${(error as Error)?.message ?? error}`, {
      cause: error,
    });
  }
  if (typeof key !== "string" || key === "" || key.length > 1_024)
    throw new TickqError("BAD_ARGS", `Job "${job.name}": debounce.key must return a string of 1–1,024 characters`);
  return { key: `${job.name}:${key}`, delayMs: debounce.delayMs, maxDelayMs: debounce.maxDelayMs };
}

/** Enqueues one debounced job; returns the jid of the job of its window. */
export async function pushDebounced(
  runtime: Runtime,
  plan: DebouncePlan,
  job: { jid: string; json: string },
  trips: RoundTrips,
): Promise<string> {
  const reply = await runCall(
    runtime,
    protocol.debounce,
    { schedule: runtime.keys.schedule },
    { token: newJid(), tokenMs: runtime.replayWindowMs, ...plan, jid: job.jid, job: job.json },
    trips,
  );
  return String(reply);
}
