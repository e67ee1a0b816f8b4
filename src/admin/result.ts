// tq.jobs.result: the outcome an awaited job's tick wrote (`result:JID`, one
// GET), else where the job is now (tq.jobs.find, which also looks through
// the succeeded jobs kept as history), with its last progress.
import { checkJid, findJob } from "./find.js";
import type { JobInfo } from "./types.js";
import type { Runtime } from "../tick/runtime.js";
import { readAwaited } from "../results/awaited.js";
import type { JobResult } from "../results/types.js";
import { cancelledResult } from "../results/cancelled.js";

function fromInfo(info: JobInfo | null, progress: unknown): JobResult {
  if (!info) return { state: "unknown" };
  if (info.state === "succeeded") {
    const result: JobResult = {
      state: "succeeded",
      value: info.result,
      finishedAt: info.finishedAt ?? 0,
      durationMs: info.durationMs ?? 0,
    };
    if (info.resultError !== undefined) result.resultError = info.resultError;
    return result;
  }
  if (info.state === "expired") return { state: "expired", expiredAt: info.at ?? 0, expiresAt: info.expiresAt ?? 0 };
  if (info.state === "cancelled")
    return cancelledResult(info.cancelledFrom ?? "queued", info.finishedAt ?? info.at ?? 0);
  if (info.state === "dead")
    return {
      state: "dead",
      error: { class: String(info.job.error_class ?? "Error"), message: String(info.job.error_message ?? "") },
    };
  return progress === undefined ? { state: info.state } : { state: info.state, progress };
}

export async function readResult(runtime: Runtime, jidValue: string): Promise<JobResult> {
  const jid = checkJid(jidValue);
  const { result, progress } = await readAwaited(runtime, jid);
  return result ?? fromInfo(await findJob(runtime, jid), progress);
}
