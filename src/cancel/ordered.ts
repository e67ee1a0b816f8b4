// tq.jobs.cancelOrdered(name, id): an ordered id has no jid; it is cancelled
// by its name and id. A waiting id (ready, due later, or backing off) is
// taken out with its payloads in one script. A run a tick holds is marked
// for that tick, with the payloads waiting behind it cancelled at once;
// this waits, as cancelJob does, until the tick said it heard (its handler's
// ctx.signal aborted with TickqCancelled, or it never starts). The tick's
// ack or the resurrector records the run cancelled, whatever its handler
// does (lib/ordered/cancel-ids.lua). Payloads enqueued after this returns
// run as the id's next run.
import { TickqError } from "../errors.js";
import { newJid } from "../client/job.js";
import { isCleanName } from "../names.js";
import type { CancelledFrom, OrderedCancelResult } from "../admin/types.js";
import { monotonicMs } from "../tick/clock.js";
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import { CANCEL_WAIT_MS } from "./cancel.js";

const POLL_MS = 25;
const MAX_ID = 1_024;

/** A run of the id a tick holds, as ordered_cancel.lua answers for it. */
interface Run {
  kind: "marked" | "heard" | "orphaned" | "gone";
  tick: string;
  fence: string;
  count: number;
}
type Reply = { kind: "cancelled"; from: CancelledFrom; count: number } | { kind: "none" } | Run;

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
  if (first.kind === "cancelled") return { name, id, state: "cancelled", from: first.from, payloads: first.count };
  const deadline = monotonicMs() + CANCEL_WAIT_MS;
  const payloads = first.count;
  for (let run: Run = first; ; ) {
    // Gone once marked: its tick settled the run, and a marked run is always settled as cancelled.
    if (run.kind === "gone") return { name, id, state: "cancelled", from: "running", payloads };
    if (run.kind === "heard") return { name, id, state: "cancelling", from: "running", payloads, heard: true };
    if (run.kind === "orphaned" || monotonicMs() >= deadline)
      return { name, id, state: "cancelling", from: "running", payloads, heard: false };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const next = await send(runtime, name, id, run.tick, run.fence);
    if (next.kind === "cancelled" || next.kind === "none")
      throw new TickqError("REDIS", `ordered_cancel answered ${next.kind} for a run`);
    run = next;
  }
}

async function send(runtime: Runtime, name: string, id: string, tick: string, fence: string): Promise<Reply> {
  const text = await runCall(
    runtime,
    protocol.ordered_cancel,
    { ticks: runtime.keys.ticks },
    { token: newJid(), keepMs: runtime.replayWindowMs, name, id, tick, fence },
  );
  return parse(text);
}

/** ordered_cancel.lua's one line of words (its header). */
function parse(text: string): Reply {
  const words = text.split(" ");
  const [kind] = words;
  if (kind === "none") return { kind };
  if (kind === "cancelled") return { kind, from: words[1] as CancelledFrom, count: Number(words[2]) };
  if (kind === "marked" || kind === "heard" || kind === "orphaned" || kind === "gone")
    return { kind, tick: words[1] ?? "", fence: words[2] ?? "", count: Number(words[3]) };
  throw new TickqError("REDIS", `ordered_cancel answered ${JSON.stringify(text)}`);
}
