// Moving jobs out of where they wait, by their exact stored text (move.lua):
// to the tail of their queue, or nowhere (deleted). A job a tick moved first
// is left alone and reported, so it is never in two places or none. One
// job at a time: find it, move it, and if a tick took it meanwhile, find it
// again (a job now in process is refused).
import { TickqError } from "../errors.js";
import { newJid } from "../job/codec.js";
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import { jobInfo } from "./entry.js";
import { mustFind } from "./find.js";
import { sourceOf } from "./states.js";
import type { JobInfo, JobState } from "./types.js";

/** Jobs per move.lua call. */
const CHUNK = 500;

export interface MoveEntry {
  /** Its key under the prefix: "dead", "queue:default"… */
  from: string;
  raw: string;
  action: "push" | "delete";
  /** What to push, when it differs from the stored text. */
  text?: string;
  /** A queued job's distance from the head, when known. */
  hint?: number;
}

/** One flag per entry: "1" done, "0" no longer there, "u" its queue cannot be read. */
export async function moveJobs(runtime: Runtime, entries: MoveEntry[]): Promise<string> {
  let flags = "";
  for (let i = 0; i < entries.length; i += CHUNK) {
    const chunk = entries.slice(i, i + CHUNK);
    const jobs = chunk.map((e) => ({
      from: e.from,
      job: e.raw,
      action: e.action,
      push: e.text ?? "",
      distance: e.hint === undefined ? "" : String(e.hint),
    }));
    flags += await runCall(
      runtime,
      protocol.move,
      { queues: runtime.keys.queues },
      { token: newJid(), keepMs: runtime.replayWindowMs, jobs },
    );
  }
  return flags;
}

interface OneJob {
  /** The states the operation takes; any other is a TickqError CONFLICT. */
  allowed: readonly JobState[];
  action: "push" | "delete";
  /** What to push, from the job as found. */
  text?: (found: JobInfo) => string;
  /** Says what the operation is, in errors. */
  what: string;
}

/** Tries this often when ticks keep moving the job. */
const ATTEMPTS = 3;

export async function moveOne(
  runtime: Runtime,
  jid: string,
  op: OneJob,
): Promise<{ found: JobInfo; pushed?: JobInfo }> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const found = await mustFind(runtime, jid);
    if (found.state === "running") {
      throw new TickqError(
        "CONFLICT",
        `cannot ${op.what} job ${jid}: it is in process in tick ${found.tick}${found.tickAlive ? "" : " (whose lease is gone: it returns to its queue when resurrected)"}; try again once it has run`,
      );
    }
    if (!op.allowed.includes(found.state)) {
      throw new TickqError(
        "CONFLICT",
        `cannot ${op.what} job ${jid}: it is ${found.state}, and ${op.what} takes a job that is ${op.allowed.join(" or ")}`,
      );
    }
    const text = op.text?.(found) ?? found.raw;
    const entry: MoveEntry = {
      from: found.waitingOn ?? sourceOf(found.state, found.queue),
      raw: found.raw,
      action: op.action,
      text,
      ...(found.position === undefined ? {} : { hint: found.position }),
    };
    const flag = await moveJobs(runtime, [entry]);
    if (flag === "1")
      return {
        found,
        ...(op.action === "push" ? { pushed: jobInfo(text, { state: "queued", queue: found.queue }) } : {}),
      };
    if (flag === "u")
      throw new TickqError(
        "CONFLICT",
        `cannot ${op.what} job ${jid}: its queue cannot be read (a malformed job); delete it instead`,
      );
    // "0": a tick moved it meanwhile (due, fetched): look again.
  }
  throw new TickqError("CONFLICT", `cannot ${op.what} job ${jid}: it kept moving while ticks ran; try again`);
}
