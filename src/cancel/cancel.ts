// tq.jobs.cancel. A waiting job (queued, parked on a flow key, scheduled,
// retry) is taken out and recorded cancelled in one script (cancel.lua). A
// job a tick holds (running, or fetched and not started) is marked for that
// tick; this waits until the tick says it heard (its next extend, within
// about cancelCheckMs and a round trip), so once it returns that job never
// starts, and a running handler's ctx.signal has aborted. Its record is
// written by the tick's ack, whatever the handler does.
import { TickqError } from "../errors.js";
import { newJid } from "../job/codec.js";
import { asReadName, namedAsRead, unnamedNote } from "../admin/as-read-name.js";
import { checkJid, mustFind } from "../admin/find.js";
import type { CancelledFrom, CancelResult, JobInfo } from "../admin/types.js";
import { emitter } from "../tick/events.js";
import { attemptOf } from "../tick/retry.js";
import { monotonicMs } from "../tick/clock.js";
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import { sourceOf } from "../admin/states.js";

/** How long cancel waits for a tick to hear of a running job's cancel. */
export const CANCEL_WAIT_MS = 10_000;
const POLL_MS = 25;
/** Tries this often when ticks keep moving the job. */
const ATTEMPTS = 5;

const WAITING = new Set(["queued", "scheduled", "retry"]);

export async function cancelJob(runtime: Runtime, jidValue: string): Promise<CancelResult> {
  const jid = checkJid(jidValue);
  let unnamed = "";
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const { found, where } = await mustFind(runtime, jid);
    unnamed = unnamedNote(found);
    if (found.state === "running") {
      const result = await cancelRunning(runtime, found);
      if (result) return result;
      continue; // acked meanwhile: look again
    }
    if (!WAITING.has(found.state)) {
      throw new TickqError(
        "CONFLICT",
        `cannot cancel job ${jid}: it is ${found.state} (it has ended); cancel takes a job that is queued, scheduled, retry or running`,
      );
    }
    const from = found.state as CancelledFrom;
    const reply = await send(
      runtime,
      found,
      found.waitingOn ?? sourceOf(found.state as "queued", found.queue),
      "",
      found.at === undefined ? undefined : where,
    );
    if (reply === "cancelled") {
      await fireCancelled(runtime, found, from);
      return { jid, state: "cancelled", from };
    }
    // "gone": a tick moved it first (due, fetched): look again.
  }
  throw new TickqError("CONFLICT", `cannot cancel job ${jid}: it kept moving while ticks ran; try again${unnamed}`);
}

/** Marks the job for its tick and waits until it heard; undefined when the job left the tick first. */
async function cancelRunning(runtime: Runtime, found: JobInfo): Promise<CancelResult | undefined> {
  const deadline = monotonicMs() + CANCEL_WAIT_MS;
  for (let marked = false; ; marked = true) {
    const reply = await send(runtime, found, `inproc:${found.queue}`, found.tick ?? "");
    // Gone once marked: its tick acked it, and every ack of a marked job records it cancelled.
    if (reply === "gone") return marked ? { jid: found.jid, state: "cancelled", from: "running" } : undefined;
    if (reply === "heard") return { jid: found.jid, state: "cancelling", from: "running", heard: true };
    // orphaned: its tick is dead; the resurrector records it cancelled, never puts it back.
    if (reply === "orphaned") return { jid: found.jid, state: "cancelling", from: "running", heard: false };
    if (monotonicMs() >= deadline) return { jid: found.jid, state: "cancelling", from: "running", heard: false };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** `score`: a sorted set's score as Redis wrote it, where a job named by its text as read is looked for. */
async function send(runtime: Runtime, found: JobInfo, from: string, tick: string, score?: string): Promise<string> {
  const distance = found.position === undefined ? "" : String(found.position);
  // A job read with U+FFFD is named by its text as read, and where it was seen (src/admin/as-read-name.ts): in a
  // tick's list (looked through whole, as LPOS did), a sorted set or at a distance; else (a priority or group set)
  // by its text.
  const named = (tick !== "" || score !== undefined || found.position !== undefined) && namedAsRead(found.raw);
  return runCall(
    runtime,
    protocol.cancel,
    { queues: runtime.keys.queues },
    {
      token: newJid(),
      keepMs: runtime.replayWindowMs,
      jid: found.jid,
      from,
      job: named ? await asReadName(found.raw) : found.raw,
      distance: named ? (score ?? distance) : distance,
      tick,
    },
  );
}

/** A waiting job's `cancelled` event fires here, in the process that cancelled it (a running one's in its tick). */
async function fireCancelled(runtime: Runtime, found: JobInfo, from: CancelledFrom): Promise<void> {
  if (runtime.listeners.cancelled.size === 0) return;
  const pending: Promise<unknown>[] = [];
  emitter(
    runtime.listeners,
    runtime.logs,
    pending,
  )("cancelled", {
    jid: found.jid,
    name: found.name,
    queue: found.queue,
    args: Array.isArray(found.job.args) ? found.job.args : [],
    attempt: attemptOf(found.job),
    payload: found.job,
    from,
  });
  await Promise.allSettled(pending);
}
