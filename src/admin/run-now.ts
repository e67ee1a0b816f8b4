// tq.jobs.runNow: a scheduled or retry job to the tail of its queue now,
// unchanged (Sidekiq's add_to_queue). A dead job takes retry instead.
import type { Runtime } from "../tick/runtime.js";
import { checkJid } from "./find.js";
import { moveOne } from "./move.js";
import type { JobInfo } from "./types.js";

export async function runJobNow(runtime: Runtime, jid: string): Promise<JobInfo> {
  const { pushed } = await moveOne(runtime, checkJid(jid), {
    allowed: ["scheduled", "retry"],
    action: "push",
    what: "run now",
  });
  return pushed!;
}
