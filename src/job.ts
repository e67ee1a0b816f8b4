// The job codec: building a job's JSON for enqueue, and reading a fetched
// job string back, with a reason for every way it can be unusable.
import { TickqError } from "./errors.js";
import type { JobPayload, JobRegistry } from "./types.js";

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));
const POOL_BYTES = 12 * 256;
let pool = new Uint8Array(0);
let used = 0;

/**
 * 24 hex characters, like Sidekiq's jids. Web Crypto works in every
 * runtime; drawing 256 jids' worth at a time makes bulk enqueue cheap.
 */
export function newJid(): string {
  if (used + 12 > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(POOL_BYTES));
    used = 0;
  }
  let jid = "";
  for (let i = used; i < used + 12; i++) jid += HEX[pool[i]!];
  used += 12;
  return jid;
}

/**
 * The JSON that enqueue.lua receives: it must end with `}` and carry no
 * created_at/enqueued_at, which the script appends with Redis' time.
 */
export function encodeNewJob(payload: Omit<JobPayload, "created_at" | "enqueued_at">): string {
  try {
    return JSON.stringify(payload);
  } catch (error) {
    throw new TickqError("BAD_ARGS", `Job ${payload.class}: args cannot be serialized as JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
}

export type DecodedJob =
  | { ok: true; payload: JobPayload }
  | { ok: false; errorClass: "TickqMalformedJob" | "TickqUnknownJob"; reason: string };

/** Reads a job string from a queue. Never throws: a bad job gets a reason. */
export function decodeJob(raw: string, jobs: JobRegistry): DecodedJob {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, errorClass: "TickqMalformedJob", reason: "job is not valid JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, errorClass: "TickqMalformedJob", reason: "job is not a JSON object" };
  }
  const job = value as Record<string, unknown>;
  if (typeof job.class !== "string" || job.class === "") {
    return { ok: false, errorClass: "TickqMalformedJob", reason: 'job has no "class" (the job name)' };
  }
  if (!Array.isArray(job.args)) {
    return { ok: false, errorClass: "TickqMalformedJob", reason: 'job "args" is not an array' };
  }
  if (!Object.hasOwn(jobs, job.class)) {
    return { ok: false, errorClass: "TickqUnknownJob", reason: `no job named "${job.class}" is registered` };
  }
  const payload = { ...job, jid: typeof job.jid === "string" ? job.jid : "", queue: String(job.queue ?? "default") };
  return { ok: true, payload: payload as JobPayload };
}

/**
 * The dead-set entry for a job that cannot run. A job that is not a JSON
 * object is wrapped so the dead set stays readable by Sidekiq, with the
 * original text kept whole in `raw`.
 */
export function deadEntryFor(raw: string, queue: string, errorClass: string, reason: string, nowSec: number): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  const base =
    typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { class: "TickqMalformedJob", args: [], jid: newJid(), queue, raw };
  return JSON.stringify({ ...base, error_class: errorClass, error_message: reason, failed_at: nowSec });
}
