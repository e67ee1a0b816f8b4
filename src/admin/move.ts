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
import { asReadName, fieldsPatch, namedAsRead, unnamedNote } from "./as-read-name.js";
import { jobInfo } from "./entry.js";
import { mustFind } from "./find.js";
import { withFields } from "./retried-text.js";
import { sourceOf } from "./states.js";
import type { JobInfo, JobState } from "./types.js";

/** Jobs per move.lua call. */
const CHUNK = 500;

export interface MoveEntry {
  /** Its key under the prefix: "dead", "queue:default"… */
  from: string;
  raw: string;
  action: "push" | "delete";
  /** Fields to set in what is pushed (spliced into the stored text): a retry's retry_count. */
  fields?: Record<string, unknown>;
  /** A queued job's distance from the head, when known. */
  hint?: number;
  /** A sorted set's score as Redis wrote it: where a job named by its text as read is looked for. */
  score?: string;
}

/** One flag per entry: "1" done, "0" no longer there, "u" its queue cannot be read. */
export async function moveJobs(runtime: Runtime, entries: MoveEntry[]): Promise<string> {
  let flags = "";
  for (let i = 0; i < entries.length; i += CHUNK) {
    const chunk = entries.slice(i, i + CHUNK);
    const jobs = chunk.map(plainArgs);
    // Only a job read with U+FFFD (as-read-name.ts) is named apart: most calls name none, and await nothing.
    for (let k = 0; k < chunk.length; k++) if (namedApart(chunk[k]!)) jobs[k] = await asReadArgs(chunk[k]!);
    flags += await runCall(
      runtime,
      protocol.move,
      { queues: runtime.keys.queues },
      { token: newJid(), keepMs: runtime.replayWindowMs, jobs },
    );
  }
  return flags;
}

/**
 * Whether an entry is named by its text as read: it was read with U+FFFD and where it was seen is known. One in a
 * priority or group set (no distance, no score) is named by its text: that finds it when its U+FFFD is stored as
 * such, and misses it (as before) when it stands for bytes that are not valid UTF-8.
 */
const namedApart = (e: MoveEntry) => (e.score !== undefined || e.hint !== undefined) && namedAsRead(e.raw);

/** move.lua's arguments for a plain job: its text, the text to push ('' the stored one), its distance. */
function plainArgs(e: MoveEntry) {
  const distance = e.hint === undefined ? "" : String(e.hint);
  return { from: e.from, job: e.raw, action: e.action, push: e.fields ? withFields(e.raw, e.fields) : "", distance };
}

/** For a job read with U+FFFD: its name, the fields to set in its stored bytes, and where it was seen. */
async function asReadArgs(e: MoveEntry): Promise<ReturnType<typeof plainArgs>> {
  return {
    from: e.from,
    job: await asReadName(e.raw),
    action: e.action,
    push: fieldsPatch(e.fields),
    distance: e.score ?? (e.hint === undefined ? "" : String(e.hint)),
  };
}

interface OneJob {
  /** The states the operation takes; any other is a TickqError CONFLICT. */
  allowed: readonly JobState[];
  action: "push" | "delete";
  /** Fields to set in what is pushed, from the job as found. */
  fields?: (found: JobInfo) => Record<string, unknown> | undefined;
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
  let unnamed = "";
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const { found, where } = await mustFind(runtime, jid);
    unnamed = unnamedNote(found);
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
    const fields = op.fields?.(found);
    const entry: MoveEntry = {
      from: found.waitingOn ?? sourceOf(found.state, found.queue),
      raw: found.raw,
      action: op.action,
      ...(fields ? { fields } : {}),
      ...(found.position === undefined ? {} : { hint: found.position }),
      ...(found.at === undefined ? {} : { score: where }),
    };
    const flag = await moveJobs(runtime, [entry]);
    if (flag === "1")
      return {
        found,
        ...(op.action === "push"
          ? { pushed: jobInfo(withFields(found.raw, fields), { state: "queued", queue: found.queue }) }
          : {}),
      };
    if (flag === "u")
      throw new TickqError(
        "CONFLICT",
        `cannot ${op.what} job ${jid}: its queue cannot be read (a malformed job); delete it instead`,
      );
    // "0": a tick moved it meanwhile (due, fetched): look again.
  }
  throw new TickqError("CONFLICT", `cannot ${op.what} job ${jid}: it kept moving while ticks ran; try again${unnamed}`);
}
