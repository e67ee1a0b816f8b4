// tq.queues.pause / resume: fetch skips a paused queue (lib/tick/fetch-jobs.lua); its
// jobs stay, and scheduled or retry jobs still join it when due.
import { TickqError } from "../errors.js";
import { isCleanName } from "../names.js";
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";

export async function setPaused(runtime: Runtime, name: string, paused: boolean): Promise<void> {
  if (!isCleanName(name))
    throw new TickqError("BAD_ARGS", `queue must be a name without spaces, got ${JSON.stringify(name)}`);
  await runCall(runtime, protocol.pause, { paused: `${runtime.prefix}paused` }, { queue: name, paused });
}
