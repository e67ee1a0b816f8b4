// The fences of flow jobs a fetch started (lib/flow.lua answers {jid,
// fence, …} beside the jobs): each job gets its own, for ctx.fence.
import { readFetched, type FetchedJob } from "../passes/fetch.js";
import { asArray, asNumber } from "../redis.js";
import type { RedisReply } from "../types.js";
import { flowJidOf } from "./descriptor.js";

/** readFetched (fetch.lua's groups), each flow job with its fence from `fenceReply`. */
export function readFetchedFenced(groups: RedisReply | undefined, fenceReply: RedisReply | undefined): FetchedJob[] {
  const jobs = readFetched(groups);
  if (fenceReply !== undefined && fenceReply !== null) attachFences(jobs, fenceReply);
  return jobs;
}

function attachFences(jobs: FetchedJob[], reply: RedisReply): void {
  const flat = asArray(reply, "flow fences");
  if (flat.length === 0) return;
  const fences = new Map<string, number>();
  for (let i = 0; i < flat.length; i += 2) fences.set(String(flat[i]), asNumber(flat[i + 1]));
  for (const job of jobs) {
    const jid = flowJidOf(job.raw);
    const fence = jid === undefined ? undefined : fences.get(jid);
    if (fence !== undefined) job.flowFence = fence;
  }
}
