// The records a tick writes by jid (lib/results/keep-results.lua): the outcome
// of an awaited job (`result:JID`) and a running job's last progress
// (`progress:JID`), read in one call.
import { TickqError } from "../errors.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { Runtime } from "../tick/runtime.js";
import type { RedisReply } from "../redis/types.js";
import type { JobError, JobResult } from "./types.js";
import { cancelledResult } from "./cancelled.js";

/** A JSON text as read back: a client that decodes JSON replies (@upstash/redis) may hand the value over already. */
const textOf = (reply: RedisReply | undefined): string | undefined =>
  reply === null || reply === undefined ? undefined : typeof reply === "string" ? reply : JSON.stringify(reply);

/** The record `result:JID` holds (undefined when there is none), and the job's last progress (ctx.progress). */
export async function readAwaited(runtime: Runtime, jid: string): Promise<{ result?: JobResult; progress?: unknown }> {
  const { prefix } = runtime;
  const reply = await runCall(
    runtime,
    protocol.result,
    { result: `${prefix}result:${jid}`, progress: `${prefix}progress:${jid}` },
    {},
  );
  const record = textOf(reply.record);
  const progress = textOf(reply.progress);
  return {
    ...(record === undefined ? {} : { result: fromRecord(record, jid) }),
    ...(progress === undefined ? {} : { progress: JSON.parse(progress) as unknown }),
  };
}

function fromRecord(text: string, jid: string): JobResult {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new TickqError("REDIS", `the result record of job ${jid} is not JSON: ${text.slice(0, 200)}`);
  }
  if (record.state === "cancelled")
    return cancelledResult(String(record.tickq_cancelled_from ?? "queued"), Number(record.finished_at ?? 0));
  if (record.state === "dead" || record.state === "failed")
    return { state: record.state, error: errorOf(record.error) };
  // Written by the fetch that found the job past its expiry (src/expiry/).
  if (record.state === "expired")
    return { state: "expired", expiredAt: Number(record.finished_at), expiresAt: Number(record.expires_at) };
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
