// Reading what lib/tick/fetch-jobs.lua returns. The moving itself happens in Lua
// (src/lua/lib/tick/fetch-jobs.lua), atomically, inside begin and step.
import { REPLACED, type TextsRead } from "../../protocol/define.js";

export interface FetchedJob {
  queue: string;
  /** The job string exactly as it sits in the inproc list; acks name it. */
  raw: string;
  /** How many times a dead tick left this job behind. */
  resurrections: number;
  /** How many times a tick's deadline interrupted it (not a death: counted apart). */
  interruptions: number;
  /** How many times its run was stopped because the tick could not confirm its lease in time. */
  doubts: number;
  /** Its name in acks when not its text (ack-refs.ts): "#" + SHA-1 for a large job, "~" + SHA-1 for one read with U+FFFD. */
  ref?: string;
  /** Read with U+FFFD: its stored bytes may not be valid UTF-8, so its text may name nothing in Redis (ack-refs.ts). */
  replaced?: true;
  /** A dead tick left it behind, maybe running: it runs alone (lib/tick/run-solo.lua). */
  suspect: boolean;
  /** A flow job's fence for this run, ctx.fence (src/flow/fences.ts); undefined for a plain job. */
  flowFence?: number;
  /** The fetched group it came in (one object for all its jobs): an ack of them all names them by its place (ack.ts). */
  batch?: FetchedBatch;
}

/** A group of jobs one fetch pushed into the tick's list of a queue: its place there and its size. */
export interface FetchedBatch {
  place: number;
  size: number;
  /**
   * Acked apart, as its own group with its place and text: a given-up step that named it by place
   * alone may have cut it, and the script then answers it missed (src/tick/given-up.ts).
   */
  apart?: boolean;
}

/** lib/tick/fetch-jobs.lua's groups as src/protocol/sections.ts decodes them. */
export type FetchedGroups = {
  queue: string;
  jobs: TextsRead;
  counts: { resurrections: number; interruptions: number; suspect: boolean; doubts: number }[];
  place: number;
}[];

/** Each fetched job with its counts (all 0 when the group carries none). */
export function readFetched(groups: FetchedGroups): FetchedJob[] {
  const out: FetchedJob[] = [];
  // Indexed, no destructuring iteration: this runs every step (bench/client-instructions.ts).
  for (let g = 0; g < groups.length; g++) {
    const { queue, jobs, counts, place } = groups[g]!;
    const batch: FetchedBatch = { place, size: jobs.length, apart: false };
    for (let k = 0; k < jobs.length; k++) {
      const c = counts[k];
      out.push({
        queue,
        raw: jobs[k] as string,
        resurrections: c?.resurrections ?? 0,
        interruptions: c?.interruptions ?? 0,
        suspect: c?.suspect ?? false,
        doubts: c?.doubts ?? 0,
        batch,
      });
    }
    // Only a group whose reply held U+FFFD is looked at job by job.
    if (jobs.replaced) {
      for (let k = out.length - jobs.length; k < out.length; k++)
        if (out[k]!.raw.includes(REPLACED)) out[k]!.replaced = true;
    }
  }
  return out;
}
