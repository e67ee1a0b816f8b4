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
import { withResult } from "../results/history.js";
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

export async function findJob(runtime: Runtime, jidValue: string): Promise<JobInfo | null> {
  const found = await locate(runtime, jidValue);
  if (found?.state === "running") {
    const { progress } = await readAwaited(runtime, found.jid);
    if (progress !== undefined) found.progress = progress;
  }
  if (found?.job.error_backtrace !== undefined) {
    const lines = await readBacktrace(found.job.error_backtrace);
    if (lines) found.backtrace = lines;
  }
  return found;
}

async function locate(runtime: Runtime, jidValue: string): Promise<JobInfo | null> {
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
    const { job: raw, queue } = reply;
    if (state === "running") return jobInfo(raw, { state, queue, tick: reply.tick, tickAlive: reply.tickAlive });
    if (state === "queued") {
      const waitingOn = reply.parkedOn === undefined ? {} : { waitingOn: reply.parkedOn };
      // -1: a job with a priority or a group, which waits in a sorted set, not at a distance from the head.
      const position = Number(reply.where) >= 0 ? { position: Number(reply.where) } : {};
      return jobInfo(raw, { state, queue, ...position, ...waitingOn });
    }
    return withResult(jobInfo(raw, { state, queue, at: scoreMs(reply.where) }));
  }
}

/** findJob, or a TickqError NOT_FOUND. */
export async function mustFind(runtime: Runtime, jid: string): Promise<JobInfo> {
  const found = await findJob(runtime, jid);
  if (!found)
    throw new TickqError(
      "NOT_FOUND",
      `no job with jid ${JSON.stringify(jid)}: it is in no queue, set or tick (it succeeded and no record was kept, was deleted, or never existed)`,
    );
  return found;
}
