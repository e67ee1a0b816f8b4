// tq.schedules.pause / resume / runNow: an operator's hands on a recurring
// job. Pause adds its name to `schedules:paused` (the same one-member script
// as a queue's pause, pause.lua): ticks still claim its slots, so its due
// time moves on, but enqueue nothing (recurring.lua); resumed, it runs from
// its next slot. Run now enqueues its job at once, as a slot would (its args
// and queue), beside the slots, with a jid of its own.
import { enqueueJobs } from "../client/enqueue.js";
import { TickqError } from "../errors.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { RecurringRuntime as Runtime } from "./runtime.js";
import { listRecurring } from "./list.js";

async function known(runtime: Runtime, name: string): Promise<void> {
  if (runtime.recurring.byName.has(name)) return;
  const names = (await listRecurring(runtime)).map((s) => s.name);
  if (!names.includes(name))
    throw new TickqError(
      "NOT_FOUND",
      `no recurring job named ${JSON.stringify(name)} (${names.length ? `schedules: ${names.join(", ")}` : "none declared"})`,
    );
}

export async function pauseSchedule(runtime: Runtime, name: string, paused: boolean): Promise<void> {
  if (typeof name !== "string") throw new TickqError("BAD_ARGS", "a schedule's name must be a string");
  await known(runtime, name);
  await runCall(runtime, protocol.pause, { paused: `${runtime.prefix}schedules:paused` }, { queue: name, paused });
}

/** Its job enqueued now (paused or not: an operator asked); returns the jid. */
export async function runScheduleNow(runtime: Runtime, name: string): Promise<string> {
  const declared = runtime.recurring.byName.get(name);
  if (!declared) {
    await known(runtime, name);
    throw new TickqError(
      "BAD_ARGS",
      `recurring job ${JSON.stringify(name)} is declared by another deployment: run it now from there`,
    );
  }
  const spec = declared.spec;
  const [jid] = await enqueueJobs(runtime, [{ name: spec.job, args: spec.args ?? [], queue: declared.queue }]);
  return jid!;
}
