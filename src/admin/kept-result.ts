// A succeeded job kept as history (lib/results/keep-results.lua) as the jobs
// API shows it: the job's own text opens with the members its tick spliced
// in (tickq_result or tickq_result_error, tickq_duration_ms); they are read
// back into the job info's own fields. A cancelled job's record carries
// where it was cancelled from, and an ordered id's record what it took.
import type { CancelledFrom, JobInfo, OrderedRecord } from "./types.js";

/** The fields a kept job carries, read into `result`, `resultError`, `durationMs`; `finishedAt` is its score. */
export function withResult(info: JobInfo): JobInfo {
  if (info.state === "cancelled") return withCancel(info);
  if (info.state !== "succeeded") return info;
  const { tickq_result: result, tickq_result_error: note, tickq_duration_ms: duration, ...job } = info.job;
  info.job = job as JobInfo["job"];
  if (result !== undefined) info.result = result;
  if (typeof note === "string") info.resultError = note;
  if (info.at !== undefined) info.finishedAt = info.at;
  info.durationMs = typeof duration === "number" ? duration : 0;
  return info;
}

/** A cancelled job's record (lib/cancel/record-cancelled.lua): `tickq_cancelled_from` read into `cancelledFrom`. */
function withCancel(info: JobInfo): JobInfo {
  const { tickq_cancelled_from: from, ...job } = info.job;
  info.job = job as JobInfo["job"];
  if (typeof from === "string") info.cancelledFrom = from as CancelledFrom;
  if (info.at !== undefined) info.finishedAt = info.at;
  const ordered = orderedRecordOf(job as JobInfo["job"]);
  if (ordered) info.ordered = ordered;
  return info;
}

/** An ordered id's record (lib/ordered/cancel-ids.lua): args [id, payloads], tickq_ordered { fence?, scores }. */
function orderedRecordOf(job: JobInfo["job"]): OrderedRecord | undefined {
  const part = job.tickq_ordered;
  const [id, payloads] = job.args;
  if (typeof part !== "object" || part === null || typeof id !== "string" || !Array.isArray(payloads)) return undefined;
  const { fence, scores } = part as { fence?: unknown; scores?: unknown };
  const record: OrderedRecord = { id, payloads, scores: Array.isArray(scores) ? scores.map(Number) : [] };
  if (typeof fence === "number") record.fence = fence;
  return record;
}
