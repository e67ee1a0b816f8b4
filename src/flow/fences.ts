// The flow part of a fetch's reply (lib/fetch.lua): {"JID JID …" of the
// flow jobs that start, 1 if the fetch stopped at its set-aside cap, F}: the
// k-th JID's fence is F + k (Lua sends no number a job: turning one into
// text costs Redis' Lua a microsecond or more).
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
  const [jids, capped, first] = asArray(flow, "flow fetch");
  if (jids) attachFences(jobs, String(jids), asNumber(first));
  return { jobs, capped: asNumber(capped) === 1 };
}

function attachFences(jobs: FetchedJob[], words: string, first: number): void {
  if (words === "") return;
  const jids = words.split(" ");
  const fences = new Map<string, number>();
  for (let k = 0; k < jids.length; k++) fences.set(jids[k]!, first + k + 1);
  for (const job of jobs) {
    const jid = flowJidOf(job.raw);
    const fence = jid === undefined ? undefined : fences.get(jid);
    if (fence !== undefined) job.flowFence = fence;
  }
}
