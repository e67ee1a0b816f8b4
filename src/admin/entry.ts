// A stored job as the jobs API shows it. The text is parsed only to be
// read; every state change moves the stored text itself (or a spliced copy).
import { MAX_JOB_DEPTH, nestsWithin } from "../job/json-depth.js";
import type { JobPayload } from "../job/payload.js";
import type { JobInfo, JobState } from "./types.js";

export interface Place {
  state: JobState;
  queue: string;
  at?: number;
  position?: number;
  tick?: string;
  tickAlive?: boolean;
  waitingOn?: string;
}

/** A field that must be text; any client writes jobs, so it may hold an object, and String() of {"toString":1} throws. */
const text = (value: unknown, fallback: string) =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : fallback;

function parse(raw: string, queue: string): JobPayload {
  // Nested too deep to serialize again: shown by its raw text, as text that is not JSON is.
  if (!nestsWithin(raw, MAX_JOB_DEPTH)) return { class: "", args: [], jid: "", queue, retry: false };
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const job = value as Partial<JobPayload>;
      return {
        ...job,
        class: text(job.class, ""),
        args: Array.isArray(job.args) ? job.args : [],
        jid: text(job.jid, ""),
        queue: text(job.queue, queue),
        retry: job.retry ?? false,
      };
    }
  } catch {
    // not JSON: shown by its raw text
  }
  return { class: "", args: [], jid: "", queue, retry: false };
}

export function jobInfo(raw: string, place: Place): JobInfo {
  const job = parse(raw, place.queue);
  const info: JobInfo = {
    state: place.state,
    jid: job.jid,
    name: job.class,
    queue: place.queue || job.queue,
    job,
    raw,
  };
  if (typeof job.tickq_priority === "number") info.priority = job.tickq_priority;
  if (typeof job.tickq_group === "string") info.group = job.tickq_group;
  if (place.at !== undefined) info.at = place.at;
  if (place.position !== undefined) info.position = place.position;
  if (place.waitingOn !== undefined) info.waitingOn = place.waitingOn;
  if (place.tick !== undefined) info.tick = place.tick;
  if (place.tickAlive !== undefined) info.tickAlive = place.tickAlive;
  // The expiry enqueue.lua wrote by Redis' clock (src/expiry/).
  if (typeof job.tickq_expires_at === "number") info.expiresAt = job.tickq_expires_at;
  return info;
}

/** A sorted set's score (epoch seconds, as Redis wrote it) in epoch ms. */
export const scoreMs = (score: unknown) => Math.round(Number(score) * 1000);

/** How a name or jid is written inside a JSON string: what the scripts compare. */
export const asJsonText = (value: string) => JSON.stringify(value).slice(1, -1);
