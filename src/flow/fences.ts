// The flow part of a fetch's reply (lib/fetch.lua): {"JID FENCE JID FENCE
// …" of the flow jobs that start, 1 if the fetch stopped at its set-aside cap}.
// Each job gets its own fence, for ctx.fence; `capped` tells the tick the
// queue may hold more behind the jobs set aside, though the fetch came
// back short.
import { readFetched, type FetchedJob } from "../passes/fetch.js";
import { asArray, asNumber } from "../redis.js";
import type { RedisReply } from "../types.js";
import { flowJidOf } from "./descriptor.js";

export interface FlowFetched {
  jobs: FetchedJob[];
  /** The fetch stopped at its cap of jobs set aside (parked, deferred): fetch again. */
  capped: boolean;
}

/** readFetched (fetch.lua's groups), each flow job with its fence from the flow part. */
export function readFetchedFenced(groups: RedisReply | undefined, flow: RedisReply | undefined): FlowFetched {
  const jobs = readFetched(groups);
  if (flow === undefined || flow === null) return { jobs, capped: false };
  const [fences, capped] = asArray(flow, "flow fetch");
  if (fences) attachFences(jobs, String(fences));
  return { jobs, capped: asNumber(capped) === 1 };
}

function attachFences(jobs: FetchedJob[], words: string): void {
  if (words === "") return;
  const flat = words.split(" ");
  const fences = new Map<string, number>();
  for (let i = 0; i < flat.length; i += 2) fences.set(flat[i]!, Number(flat[i + 1]));
  for (const job of jobs) {
    const jid = flowJidOf(job.raw);
    const fence = jid === undefined ? undefined : fences.get(jid);
    if (fence !== undefined) job.flowFence = fence;
  }
}
