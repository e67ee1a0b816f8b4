// Reading what lib/tick/fetch-jobs.lua returns. The moving itself happens in Lua
// (src/lua/lib/tick/fetch-jobs.lua), atomically, inside begin and step.

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

/** lib/tick/fetch-jobs.lua's groups as src/protocol/sections.ts decodes them. */
export type FetchedGroups = {
  queue: string;
  jobs: string[];
  counts: { resurrections: number; interruptions: number; suspect: boolean; doubts: number }[];
}[];

/** Each fetched job with its counts (all 0 when the group carries none). */
export function readFetched(groups: FetchedGroups): FetchedJob[] {
  const out: FetchedJob[] = [];
  // Indexed, no destructuring iteration: this runs every step (bench/client-instructions.ts).
  for (let g = 0; g < groups.length; g++) {
    const { queue, jobs, counts } = groups[g]!;
    for (let k = 0; k < jobs.length; k++) {
      const c = counts[k];
      out.push({
        queue,
        raw: jobs[k] as string,
        resurrections: c?.resurrections ?? 0,
        interruptions: c?.interruptions ?? 0,
        suspect: c?.suspect ?? false,
        doubts: c?.doubts ?? 0,
      });
    }
  }
  return out;
}
