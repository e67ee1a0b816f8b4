// Reading what fetch.lua returns. The moving itself happens in Lua
// (src/lua/lib/tick/fetch-jobs.lua), atomically, inside begin and step.
import { asArray, asNumber } from "../../redis/adapter.js";
import type { RedisReply } from "../../types.js";

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
  /** A large job's name in acks, "#" + its SHA-1 (ack-refs.ts); undefined: its text names it. */
  ref?: string;
  /** A dead tick left it behind, maybe running: it runs alone (lib/tick/run-solo.lua). */
  suspect: boolean;
  /** A flow job's fence for this run, ctx.fence (src/flow/fences.ts); undefined for a plain job. */
  flowFence?: number;
}

/** Reads fetch.lua's groups: queue, {jobs}, {resurrections, interruptions, suspect flag and doubts of each job, or none}. */
export function readFetched(reply: RedisReply | undefined): FetchedJob[] {
  const groups = asArray(reply ?? [], "fetch");
  const jobs: FetchedJob[] = [];
  for (let g = 0; g < groups.length; g += 3) {
    const queue = String(groups[g]);
    const raws = asArray(groups[g + 1] ?? [], "fetch");
    const counts = asArray(groups[g + 2] ?? [], "fetch");
    raws.forEach((raw, k) =>
      jobs.push({
        queue,
        raw: String(raw),
        resurrections: asNumber(counts[4 * k]),
        interruptions: asNumber(counts[4 * k + 1]),
        suspect: asNumber(counts[4 * k + 2]) === 1,
        doubts: asNumber(counts[4 * k + 3]),
      }),
    );
  }
  return jobs;
}
