// tq.jobs.retry: a scheduled, retry or dead job to the tail of its queue
// now, with retry_count one lower (Sidekiq's retry). Atomic with any tick.
import type { Runtime } from "../tick/runtime.js";
import { checkJid } from "./find.js";
import { moveOne } from "./move.js";
import { retriedFields } from "./retried-text.js";
import type { JobInfo } from "./types.js";

export async function retryJob(runtime: Runtime, jid: string): Promise<JobInfo> {
  const { pushed } = await moveOne(runtime, checkJid(jid), {
    allowed: ["scheduled", "retry", "dead"],
    action: "push",
    fields: (found) => retriedFields(found.raw),
    what: "retry",
  });
  return pushed!;
}
