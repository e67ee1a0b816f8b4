// tq.jobs.result: the outcome an awaited job's tick wrote (`result:JID`, one
// GET), else where the job is now (tq.jobs.find, which also looks through
// the succeeded jobs kept as history).
import { TickqError } from "../errors.js";
import { checkJid, findJob } from "../admin/find.js";
import type { JobInfo } from "../admin/types.js";
import { scripts } from "../lua/index.js";
import type { Runtime } from "../tick/runtime.js";
import type { JobError, JobResult } from "./types.js";

/** The record `result:JID` holds, or undefined when there is none. */
export async function readAwaited(runtime: Runtime, jid: string): Promise<JobResult | undefined> {
  const reply = await runtime.run(scripts.result, [`${runtime.prefix}result:${jid}`], [], { count: 0 });
  if (reply === null || reply === undefined) return undefined;
  return fromRecord(typeof reply === "string" ? reply : JSON.stringify(reply), jid);
}

function fromRecord(text: string, jid: string): JobResult {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new TickqError("REDIS", `the result record of job ${jid} is not JSON: ${text.slice(0, 200)}`);
  }
  if (record.state === "dead" || record.state === "failed") return { state: record.state, error: errorOf(record.error) };
  const result: JobResult = {
    state: "succeeded",
    value: record.tickq_result,
    finishedAt: Number(record.finished_at),
    durationMs: Number(record.tickq_duration_ms ?? 0),
  };
  if (typeof record.tickq_result_error === "string") result.resultError = record.tickq_result_error;
  return result;
}

function errorOf(value: unknown): JobError {
  const error = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  return { class: String(error.class ?? "Error"), message: String(error.message ?? "") };
}

function fromInfo(info: JobInfo | null): JobResult {
  if (!info) return { state: "unknown" };
  if (info.state === "succeeded") {
    const result: JobResult = { state: "succeeded", value: info.result, finishedAt: info.finishedAt ?? 0, durationMs: info.durationMs ?? 0 };
    if (info.resultError !== undefined) result.resultError = info.resultError;
    return result;
  }
  if (info.state === "dead") return { state: "dead", error: { class: String(info.job.error_class ?? "Error"), message: String(info.job.error_message ?? "") } };
  return { state: info.state };
}

export async function readResult(runtime: Runtime, jidValue: string): Promise<JobResult> {
  const jid = checkJid(jidValue);
  return (await readAwaited(runtime, jid)) ?? fromInfo(await findJob(runtime, jid));
}
