// Reading what fetch.lua returns. The moving itself happens in Lua
// (src/scripts/lib/fetch.lua), atomically, inside begin and step.
import { asArray, asNumber } from "../redis.js";
import type { RedisReply } from "../types.js";

export interface FetchedJob {
  queue: string;
  /** The job string exactly as it sits in the inproc list; acks name it. */
  raw: string;
  /** How many times a dead tick left this job behind. */
  resurrections: number;
}

export function readFetched(reply: RedisReply | undefined): FetchedJob[] {
  const flat = asArray(reply ?? [], "fetch");
  const jobs: FetchedJob[] = [];
  for (let i = 0; i < flat.length; i += 3) {
    jobs.push({ queue: String(flat[i]), raw: String(flat[i + 1]), resurrections: asNumber(flat[i + 2]) });
  }
  return jobs;
}
