// The flow part of a fetch's reply (lib/tick/fetch-jobs.lua): {1 if the fetch
// stopped at its set-aside cap, F, 1 if jobs wait parked on keys}: the k-th flow job of the reply, in its
// order, has fence F + k. Lua names no job and sends no number a job:
// cutting a jid out or turning a number into text costs Redis' Lua a
// microsecond or more, and the reply's order already says which is which.
// Each job gets its own fence, for ctx.fence; `capped` tells the tick the
// queue may hold more behind the jobs set aside, though the fetch came
// back short.
import { readFetched, type FetchedGroups, type FetchedJob } from "../tick/passes/fetch.js";
import { isFlowJob } from "../job/flow-descriptor.js";

export interface FlowFetched {
  jobs: FetchedJob[];
  /** The fetch stopped at its cap of jobs set aside (parked, deferred): fetch again. */
  capped: boolean;
  /** Jobs wait parked on flow keys (lib/fetch.lua): an ack that frees a slot sends one back. */
  parked: boolean;
}

/** readFetched (lib/tick/fetch-jobs.lua's groups), each flow job with its fence from the flow part. */
export function readFetchedFenced(
  groups: FetchedGroups,
  flow: { capped: boolean; fence: number; parked: boolean } | undefined,
): FlowFetched {
  const jobs = readFetched(groups);
  if (flow === undefined) return { jobs, capped: false, parked: false };
  let fence = flow.fence;
  for (const job of jobs) if (isFlowJob(job.raw)) job.flowFence = ++fence;
  return { jobs, capped: flow.capped, parked: flow.parked };
}
