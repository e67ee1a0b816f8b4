// tq.jobs.delete: removes a queued, scheduled, retry or dead job, or one kept as history. A job in
// process is refused: its tick would ack it anyway.
import type { Runtime } from "../tick/runtime.js";
import { checkJid } from "./find.js";
import { moveOne } from "./move.js";
import type { JobInfo } from "./types.js";

export async function deleteJob(runtime: Runtime, jid: string): Promise<JobInfo> {
  const { found } = await moveOne(runtime, checkJid(jid), {
    allowed: ["queued", "scheduled", "retry", "dead", "succeeded", "cancelled", "expired"],
    action: "delete",
    what: "delete",
  });
  return found;
}
