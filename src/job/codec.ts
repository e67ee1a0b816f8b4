// The job codec: building a job's JSON for enqueue, and reading a fetched
// job string back, with a reason for every way it can be unusable.
import { TickqError } from "../errors.js";
import { seconds, spliceFields } from "./json-splice.js";
import { readOwnShape } from "./own-shape.js";
import type { JobPayload } from "./payload.js";

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

/** Deeper than this, Redis' cjson refuses to read the job. */
const MAX_DEPTH = 1_000;

/** A lone surrogate escape (`\ud800` alone), which JSON.stringify writes and cjson refuses; `\\ud800` is a backslash, not an escape. */
const LONE_SURROGATE = /(?:^|[^\\])(?:\\\\)*\\ud[89a-f][0-9a-f]{2}/i;

/** Nesting depth of a JSON text, strings skipped. */
function depthOf(json: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 34) {
      for (i++; i < json.length && json.charCodeAt(i) !== 34; i++) if (json.charCodeAt(i) === 92) i++;
    } else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/**
 * The JSON that enqueue.lua receives: it must end with `}` and carry no
 * created_at/enqueued_at, which the script appends with Redis' time. It must
 * also be JSON that any reader of the queue can read: Sidekiq, and Redis'
 * own cjson, refuse lone surrogates and very deep nesting.
 */
export function encodeNewJob(payload: Omit<JobPayload, "created_at" | "enqueued_at">): string {
  let json: string;
  try {
    json = JSON.stringify(payload);
  } catch (error) {
    throw new TickqError(
      "BAD_ARGS",
      `Job ${payload.class}: args cannot be serialized as JSON (${(error as Error).message})`,
      {
        cause: error,
      },
    );
  }
  const surrogate = LONE_SURROGATE.exec(json);
  if (surrogate) {
    throw new TickqError(
      "BAD_ARGS",
      `Job ${payload.class}: args hold a lone UTF-16 surrogate (${surrogate[0].slice(-6)}), which Redis' JSON reader refuses; use String.prototype.toWellFormed()`,
    );
  }
  if (json.length > 2 * MAX_DEPTH && depthOf(json) > MAX_DEPTH) {
    throw new TickqError(
      "BAD_ARGS",
      `Job ${payload.class}: args nest deeper than ${MAX_DEPTH} levels, which Redis' JSON reader refuses`,
    );
  }
  return json;
}

export type DecodedJob =
  | { ok: true; payload: JobPayload }
  | { ok: false; errorClass: "TickqMalformedJob"; reason: string }
  /** Readable, but no job of that name is registered here: retried, as Sidekiq retries an unknown class. */
  | { ok: false; errorClass: "TickqUnknownJob"; reason: string; payload: JobPayload };

/** Reads a job string from a queue. Never throws: a bad job gets a reason. */
export function decodeJob(raw: string, jobs: object): DecodedJob {
  // A job as tickq's enqueue wrote it (most) is read without parsing the whole text (own-shape.ts).
  const own = readOwnShape(raw);
  if (own !== undefined) {
    if (own.class !== "" && Object.hasOwn(jobs, own.class)) return { ok: true, payload: own };
    return decodeParsed(own, jobs);
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, errorClass: "TickqMalformedJob", reason: "job is not valid JSON" };
  }
  return decodeParsed(value, jobs);
}

/** decodeJob's checks of a job's parsed value. */
function decodeParsed(value: unknown, jobs: object): DecodedJob {
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
  // The object JSON.parse just made is the payload: set in place, not copied (a key keeps its place, a new one goes
  // last; bench/client-instructions.ts counts the difference).
  if (typeof job.jid !== "string") job.jid = "";
  if (typeof job.queue !== "string") job.queue = String(job.queue ?? "default");
  const payload = job as JobPayload;
  if (!Object.hasOwn(jobs, job.class)) {
    const reason = `no job named "${job.class}" is registered in the code that ticked (a rolling deploy, or another app on this prefix?)`;
    return { ok: false, errorClass: "TickqUnknownJob", reason, payload };
  }
  return { ok: true, payload };
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The dead-set entry for a job that cannot run: its own text with the error
 * fields spliced in, every other byte kept. A job that is not a JSON object
 * is wrapped so the dead set stays readable by Sidekiq, with the original
 * text kept whole in `raw`. `fields`: what was spliced, when it was a splice.
 */
export function deadEntryFor(
  raw: string,
  queue: string,
  errorClass: string,
  reason: string,
  nowSec: number,
): { text: string; fields?: Record<string, unknown> } {
  const errorFields = { error_class: errorClass, error_message: reason, failed_at: seconds(nowSec) };
  const spliced = parses(raw) ? spliceFields(raw, errorFields) : null;
  if (spliced !== null) return { text: spliced, fields: errorFields };
  return {
    text: JSON.stringify({
      class: "TickqMalformedJob",
      args: [],
      jid: newJid(),
      queue,
      raw: raw.toWellFormed(),
      ...errorFields,
    }),
  };
}
