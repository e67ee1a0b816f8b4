// tq.jobs.cancelOrdered(name, id): an ordered id has no jid; it is cancelled
// by its name and id. A waiting id (ready, due later, or backing off) is
// taken out with its payloads in one script. A run a tick holds is marked
// for that tick, with the payloads waiting behind it cancelled at once;
// this waits, as cancelJob does, until the tick said it heard (its handler's
// ctx.signal aborted with TickqCancelled, or it never starts). The tick's
// ack or the resurrector records the run cancelled, whatever its handler
// does (lib/ordered/cancel-ids.lua). Payloads enqueued after this returns
// run as the id's next run. What it takes is kept as history records in
// `cancelled` (tq.jobs.find, list("cancelled")), each with a `cancelled`
// event: here for what it took at once, in the tick for a run it settles.
import { TickqError } from "../errors.js";
import { newJid } from "../job/codec.js";
import { isCleanName } from "../names.js";
import type { CancelledFrom, OrderedCancelResult } from "../admin/types.js";
import { monotonicMs } from "../tick/clock.js";
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import { emitter } from "../tick/events.js";
import { CANCEL_WAIT_MS } from "../cancel/cancel.js";
import { recordEvent } from "./cancel-record.js";

const POLL_MS = 25;
const MAX_ID = 1_024;

/** A run of the id a tick holds, as ordered_cancel.lua answers for it. */
interface Run {
  kind: "marked" | "heard" | "orphaned" | "gone";
  tick: string;
  fence: string;
  count: number;
  /** The jid of the run's record, written when its tick settles it. */
  runJid: string;
  /** The jid of the record of the payloads waiting behind the run, when this call took any. */
  jid?: string;
  record?: string;
}
type Reply =
  | { kind: "cancelled"; from: CancelledFrom; count: number; jid: string; record?: string }
  | { kind: "none" }
  | { kind: "ambiguous"; count: number }
  | Run;

export async function cancelOrdered(runtime: Runtime, name: unknown, id: unknown): Promise<OrderedCancelResult> {
  if (!isCleanName(name) || name.includes(":"))
    throw new TickqError(
      "BAD_ARGS",
      `an ordered job's name is a string without spaces or ':', got ${JSON.stringify(name)}`,
    );
  if (typeof id !== "string" || id === "" || id.length > MAX_ID || !id.isWellFormed())
    throw new TickqError("BAD_ARGS", `an ordered id is a non-empty string of at most ${MAX_ID} characters`);
  const first = await send(runtime, name, id, "", "");
  if (first.kind === "none")
    throw new TickqError(
      "NOT_FOUND",
      `ordered job "${name}" has nothing waiting or running for id ${JSON.stringify(id)}`,
    );
  if (first.kind === "ambiguous")
    throw new TickqError(
      "CONFLICT",
      `ordered job "${name}" holds ${first.count} ids read as ${JSON.stringify(id)} (they differ only in bytes that are not UTF-8): none was cancelled`,
    );
  await fireCancelled(runtime, first.record);
  if (first.kind === "cancelled") {
    const jids = first.count > 0 ? [first.jid] : [];
    return { name, id, state: "cancelled", from: first.from, payloads: first.count, jids };
  }
  const deadline = monotonicMs() + CANCEL_WAIT_MS;
  const payloads = first.count;
  // The record of what waited behind the run (written now), then the run's (written when its tick settles it).
  const jids = [...(first.jid ? [first.jid] : []), first.runJid];
  const running = { name, id, from: "running", payloads, jids } as const;
  for (let run: Run = first; ; ) {
    // Gone once marked: its tick settled the run, and a marked run is always settled as cancelled.
    if (run.kind === "gone") return { ...running, state: "cancelled" };
    if (run.kind === "heard") return { ...running, state: "cancelling", heard: true };
    if (run.kind === "orphaned" || monotonicMs() >= deadline) return { ...running, state: "cancelling", heard: false };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const next = await send(runtime, name, id, run.tick, run.fence);
    if (next.kind === "cancelled" || next.kind === "none" || next.kind === "ambiguous")
      throw new TickqError("REDIS", `ordered_cancel answered ${next.kind} for a run`);
    run = next;
  }
}

async function send(runtime: Runtime, name: string, id: string, tick: string, fence: string): Promise<Reply> {
  const text = await runCall(
    runtime,
    protocol.ordered_cancel,
    { ticks: runtime.keys.ticks },
    {
      token: newJid(),
      keepMs: runtime.replayWindowMs,
      name,
      id,
      tick,
      fence,
      // The records ride in the reply only for listeners: they hold every payload.
      records: runtime.listeners.cancelled.size > 0 ? "1" : "",
    },
  );
  return parse(text);
}

/** ordered_cancel.lua's line of words, then the record it wrote when asked (its header). */
function parse(text: string): Reply {
  const newline = text.indexOf("\n");
  const line = newline < 0 ? text : text.slice(0, newline);
  const record = newline < 0 ? undefined : text.slice(newline + 1);
  const words = line.split(" ");
  const [kind] = words;
  if (kind === "none") return { kind };
  if (kind === "ambiguous") return { kind, count: Number(words[1]) };
  if (kind === "cancelled")
    return { kind, from: words[1] as CancelledFrom, count: Number(words[2]), jid: words[3] ?? "", ...recordOf(record) };
  if (kind === "marked" || kind === "heard" || kind === "orphaned" || kind === "gone")
    return {
      kind,
      tick: words[1] ?? "",
      fence: words[2] ?? "",
      count: Number(words[3]),
      runJid: words[4] ?? "",
      ...(words[5] ? { jid: words[5] } : {}),
      ...recordOf(record),
    };
  throw new TickqError("REDIS", `ordered_cancel answered ${JSON.stringify(text)}`);
}

const recordOf = (record: string | undefined) => (record ? { record } : {});

/** The `cancelled` event of what this call took at once, fired here (a run's fires in the tick that settles it). */
async function fireCancelled(runtime: Runtime, record: string | undefined): Promise<void> {
  if (record === undefined || runtime.listeners.cancelled.size === 0) return;
  const event = recordEvent(record);
  if (!event) return;
  const pending: Promise<unknown>[] = [];
  emitter(runtime.listeners, runtime.logs, pending)("cancelled", event);
  await Promise.allSettled(pending);
}
