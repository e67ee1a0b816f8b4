// What a tick sends, with its acks, for the results of the jobs it settled
// (the section lib/results/keep-results.lua reads): for a succeeded job
// kept as history or awaited, its result and duration; for an awaited job
// that ended failed or dead, its error. Jobs neither kept nor awaited add
// nothing, and an ack with no entry has no section at all. Progress that
// ctx.progress buffered rides along (entries numbered 0).
import { utf8Bytes } from "../job/size.js";
import type { Outcome } from "../tick/passes/ack.js";
import { describeError } from "../describe-error.js";
import type { JobPayload } from "../job/payload.js";
import { AWAITED_RESULT_TTL_MS, type ResultSettings } from "./settings.js";

/** The job field enqueueAndWait sets: its tick writes the outcome to `result:JID`. */
export const AWAIT_FIELD = "tickq_await";

/** One results entry (lib/results/keep-results.lua). */
export interface Entry {
  /** The ack entry's number (from 1, in ackOrder). */
  number: number;
  /** "progress" for a running job's progress (entry number 0; `members` is then the value). */
  state: "succeeded" | "dead" | "failed" | "progress";
  keep: boolean;
  /** The awaited job's jid, "" when nobody waits for it. */
  jid: string;
  /** JSON object members, spliced by the script into the kept job and the result record. */
  members: string;
}

/** The result as JSON, or why it cannot be kept. */
function encodeResult(value: unknown, maxBytes: number): { json: string } | { note: string } {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    return { note: `the result is not JSON (${error instanceof Error ? error.message : String(error)}): not kept` };
  }
  if (json === undefined) return { note: `the result is not JSON (a ${typeof value}): not kept` };
  const bytes = json.length > maxBytes / 3 ? utf8Bytes(json) : json.length;
  if (bytes > maxBytes)
    return { note: `the result is ${bytes} bytes of JSON, over maxResultBytes (${maxBytes}): not kept` };
  return { json };
}

/** The members of a succeeded job's record: its result (or the note why it was not kept) and how long it ran. */
export function successMembers(value: unknown, durationMs: number, maxBytes: number): string {
  const duration = `"tickq_duration_ms":${Math.max(0, Math.round(durationMs))}`;
  if (value === undefined) return duration;
  const encoded = encodeResult(value, maxBytes);
  const result =
    "json" in encoded ? `"tickq_result":${encoded.json}` : `"tickq_result_error":${JSON.stringify(encoded.note)}`;
  return `${result},${duration}`;
}

function awaitedJid(payload: JobPayload | undefined, raw: string): string {
  if (payload) return payload[AWAIT_FIELD] === undefined ? "" : payload.jid;
  // A job that could not run has no payload: read the field from its text, when it is there at all.
  if (!raw.includes(`"${AWAIT_FIELD}"`)) return "";
  try {
    const job = JSON.parse(raw) as Record<string, unknown>;
    return job[AWAIT_FIELD] !== undefined && typeof job.jid === "string" ? job.jid : "";
  } catch {
    return "";
  }
}

/** As the dead set records it (tick/retry.ts), so jobs.result, the CLI and the dashboard say the same. */
function errorOf(error: unknown, reason: string | undefined): { class: string; message: string } {
  if (error !== undefined) {
    const { errorClass, message } = describeError(error);
    return { class: errorClass, message };
  }
  const [name = "Error", ...rest] = (reason ?? "").split(": ");
  return rest.length > 0 ? { class: name, message: rest.join(": ") } : { class: "Error", message: reason ?? "" };
}

function entryOf(o: Outcome, number: number, settings: ResultSettings): Entry | undefined {
  if (o.kind === "succeeded") {
    const jid = awaitedJid(o.payload, o.job.raw);
    if (settings.keepCount === 0 && jid === "") return undefined;
    return {
      number,
      state: "succeeded",
      keep: settings.keepCount > 0,
      jid,
      members: successMembers(o.value, o.durationMs ?? 0, settings.maxResultBytes),
    };
  }
  if (o.kind !== "dead" && o.kind !== "discarded") return undefined;
  const jid = awaitedJid(o.payload, o.job.raw);
  if (jid === "") return undefined;
  const error = errorOf(o.error, o.kind === "dead" ? o.reason : undefined);
  return {
    number,
    state: o.kind === "dead" ? "dead" : "failed",
    keep: false,
    jid,
    members: `"error":${JSON.stringify(error)}`,
  };
}

/** Whether an ack needs a results section at all: most acks of most apps keep nothing, await nothing and carry no progress. */
export function needsSection(
  outcomes: Outcome[],
  settings: ResultSettings,
  progress: [string, string][] = [],
): boolean {
  if (settings.keepCount > 0 || progress.length > 0) return true;
  // One loop, no callback a job (bench/client-instructions.ts counts the difference).
  for (let k = 0; k < outcomes.length; k++) {
    const o = outcomes[k]!;
    if (o.kind !== "succeeded" && o.kind !== "dead" && o.kind !== "discarded") continue;
    if (awaitedJid(o.payload, o.job.raw) !== "") return true;
  }
  return false;
}

/** The results trailer of an ack (src/protocol/sections.ts `acks`): the settings, then one entry per result. */
export interface ResultTrailer {
  keep: number;
  ageSec: number;
  ttlMs: number;
  entries: Entry[];
}

/** The results trailer for outcomes in ack order; undefined: no entry, so no trailer. */
export function resultSection(
  inAckOrder: Outcome[],
  settings: ResultSettings,
  progress: [string, string][] = [],
): ResultTrailer | undefined {
  // Entry 0: a running job's progress (jid, value), written whatever happened to the acks.
  const entries: Entry[] = progress.map(([jid, value]) => ({
    number: 0,
    state: "progress",
    keep: false,
    jid,
    members: value,
  }));
  inAckOrder.forEach((o, k) => {
    const entry = entryOf(o, k + 1, settings);
    if (entry) entries.push(entry);
  });
  if (entries.length === 0) return undefined;
  return { keep: settings.keepCount, ageSec: settings.keepAgeSec, ttlMs: AWAITED_RESULT_TTL_MS, entries };
}
