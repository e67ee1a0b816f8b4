// tq.jobs.find: where a job is, by jid. locate.lua looks through every
// place a job can be a bounded stretch per call (in process, scheduled,
// retry, dead, each queue, in process again), so a million jobs never
// block Redis; this resends it from where it stopped until it answers.
import { TickqError } from "../errors.js";
import { isCleanName } from "../names.js";
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import { readBacktrace } from "./backtrace.js";
import { withResult } from "./kept-result.js";
import { readAwaited } from "../results/awaited.js";
import { asJsonText, jobInfo, scoreMs } from "./entry.js";
import type { JobInfo, JobState } from "./types.js";

/** Entries locate.lua looks at per call: a few milliseconds of Redis. */
const LOCATE_BUDGET = 20_000;

/** Enqueue takes jids of up to 128 characters; a cancelled ordered run's record is `o-FENCE-NAME`, up to 150. */
const MAX_JID = 160;

export function checkJid(jid: unknown): string {
  if (!isCleanName(jid, MAX_JID))
    throw new TickqError(
      "BAD_ARGS",
      `jid must be a string of 1–${MAX_JID} characters without spaces, got ${JSON.stringify(jid)}`,
    );
  return jid;
}

/** A job as found, and where: a sorted set's score as Redis wrote it, or a distance ("-1" in a priority or group set). */
export interface Placed {
  found: JobInfo;
  where: string;
}

export async function findJob(runtime: Runtime, jidValue: string): Promise<JobInfo | null> {
  return (await findPlaced(runtime, jidValue))?.found ?? null;
}

/** findJob, with where it was seen (the jobs API's moves name a job by it: as-read-name.ts). */
export async function findPlaced(runtime: Runtime, jidValue: string): Promise<Placed | null> {
  const placed = await locate(runtime, jidValue);
  if (!placed) return null;
  const { found } = placed;
  if (found.state === "running") {
    const { progress } = await readAwaited(runtime, found.jid);
    if (progress !== undefined) found.progress = progress;
  }
  if (found.job.error_backtrace !== undefined) {
    const lines = await readBacktrace(found.job.error_backtrace);
    if (lines) found.backtrace = lines;
  }
  return placed;
}

async function locate(runtime: Runtime, jidValue: string): Promise<Placed | null> {
  const jid = asJsonText(checkJid(jidValue));
  let stage = "";
  let position = "0";
  for (;;) {
    const reply = await runCall(
      runtime,
      protocol.locate,
      { queues: runtime.keys.queues, ticks: runtime.keys.ticks },
      { jid, budget: LOCATE_BUDGET, stage, position },
    );
    if (reply.kind === "none") return null;
    if (reply.kind === "more") {
      ({ stage, position } = reply);
      continue;
    }
    const state = reply.state as JobState;
    const { job: raw, queue, where } = reply;
    if (state === "running")
      return { found: jobInfo(raw, { state, queue, tick: reply.tick, tickAlive: reply.tickAlive }), where };
    if (state === "queued") {
      const waitingOn = reply.parkedOn === undefined ? {} : { waitingOn: reply.parkedOn };
      // -1: a job with a priority or a group, which waits in a sorted set, not at a distance from the head.
      const position = Number(where) >= 0 ? { position: Number(where) } : {};
      return { found: jobInfo(raw, { state, queue, ...position, ...waitingOn }), where };
    }
    return { found: withResult(jobInfo(raw, { state, queue, at: scoreMs(where) })), where };
  }
}

/** findPlaced, or a TickqError NOT_FOUND. */
export async function mustFind(runtime: Runtime, jid: string): Promise<Placed> {
  const found = await findPlaced(runtime, jid);
  if (!found)
    throw new TickqError(
      "NOT_FOUND",
      `no job with jid ${JSON.stringify(jid)}: it is in no queue, set or tick (it succeeded and no record was kept, was deleted, or never existed)`,
    );
  return found;
}
