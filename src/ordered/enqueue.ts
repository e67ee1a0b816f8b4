// Enqueueing ordered payloads: every one is checked before anything is
// written (an unknown name, an id that is not a non-empty string, a payload
// that is not JSON, a score that is not finite: a TickqError, nothing
// written; a payload over maxJobBytes: JOB_TOO_LARGE), then ordered_enqueue.lua
// adds up to 1,000 a round trip (fewer when they are large: src/job/size.ts).
// A payload must arrive as it was sent (src/job/json-value.ts); with the
// ordered job's `schema`, what is stored is the schema's output.
//
// Idempotent like plain enqueue: every call carries a token the script
// remembers for `replayWindowMs`, so a call the client resends after a
// lost reply adds nothing twice. Resending it yourself is safe too: an
// identical payload is stored once while it waits.
import { TickqError } from "../errors.js";
import { newJid } from "../job/codec.js";
import { checkJobSize, chunksOf, utf8Bytes } from "../job/size.js";
import { unfaithfulJson } from "../job/json-value.js";
import { checkBySchema } from "../job/schema-check.js";
import { checkKnownKeys } from "../options.js";
import { hasControl, terminalJson } from "../printable.js";
import type { RoundTrips } from "../redis/adapter.js";
import type { OrderedRuntime } from "./runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import { orderedDefinition } from "./registry.js";
import type { OrderedBulkJob } from "./types.js";

/** Payloads per script call: keeps one script's run short on a busy Redis. */
const CHUNK = 1_000;
const MAX_ID = 1_024;
const JOB_KEYS: Readonly<Record<keyof OrderedBulkJob, true>> = {
  name: true,
  id: true,
  payload: true,
  score: true,
  delayMs: true,
};
const JOB_KEY_SET: ReadonlySet<string> = new Set(Object.keys(JOB_KEYS));

function payloadJson(name: string, payload: unknown): string {
  const problem = unfaithfulJson(payload, "payload");
  if (problem) throw new TickqError("BAD_ARGS", `Ordered job "${name}": payload must be a JSON value; ${problem}`);
  return JSON.stringify(payload);
}

/**
 * The job with its payload checked against the ordered job's schema, if it has one. Runs once a
 * payload: the labels an error would name it by are built only for an error
 * (bench/ordered-instructions.ts counts the difference).
 */
function checkPayload(runtime: OrderedRuntime, job: OrderedBulkJob): OrderedBulkJob | Promise<OrderedBulkJob> {
  if (typeof job !== "object" || job === null)
    throw new TickqError("BAD_ARGS", "an ordered job is { name, id, payload, score?, delayMs? }");
  // One set lookup a key; the known keys' own error only when one is unknown. checkKnownKeys' two
  // hasOwn calls a key were eight a payload (bench/ordered-instructions.ts).
  for (const key in job)
    if (!JOB_KEY_SET.has(key) && Object.hasOwn(job, key))
      checkKnownKeys(job, JOB_KEYS, () => `Ordered job "${job.name}"`, "BAD_ARGS");
  const schema = orderedDefinition(runtime.ordered, job.name)?.schema;
  if (!schema) return job;
  const output = checkBySchema(schema, job.payload, `Ordered job "${job.name}"`, "payload");
  return output instanceof Promise ? output.then((payload) => ({ ...job, payload })) : { ...job, payload: output };
}

/** ordered_enqueue.lua's entry for one payload (src/protocol/ordered_enqueue.ts). */
interface OrderedPayload {
  name: string;
  id: string;
  payload: string;
  score: string;
  delayMs: number;
  /** The payload's and the id's UTF-8 bytes, for chunking (not sent). */
  bytes: number;
}

// Called, not read off each id: ids of many string shapes made that load megamorphic, looked up
// generically once a payload (bench/ordered-instructions.ts).
const isWellFormed = String.prototype.isWellFormed;

function prepare(runtime: OrderedRuntime, job: OrderedBulkJob): OrderedPayload {
  if (typeof job !== "object" || job === null)
    throw new TickqError("BAD_ARGS", "an ordered job is { name, id, payload, score?, delayMs? }");
  const { name, id, score, delayMs } = job;
  if (!orderedDefinition(runtime.ordered, name)) {
    const known = runtime.orderedNames.join(", ") || "none";
    const plain = Object.hasOwn(runtime.jobs, name) ? ` ("${name}" is a plain job: enqueue it with args)` : "";
    throw new TickqError(
      "UNKNOWN_JOB",
      `Unknown ordered job "${name}": register it in createTickq({ ordered }) (registered: ${known})${plain}`,
    );
  }
  if (typeof id !== "string" || id === "" || id.length > MAX_ID || !isWellFormed.call(id) || hasControl(id)) {
    throw new TickqError(
      "BAD_ARGS",
      `Ordered job "${name}": id must be a non-empty string of at most ${MAX_ID} characters without control characters, got ${typeof id === "string" ? terminalJson(id.slice(0, 40)) : typeof id}`,
    );
  }
  if (score !== undefined && (typeof score !== "number" || !Number.isFinite(score))) {
    throw new TickqError("BAD_ARGS", `Ordered job "${name}": score must be a finite number, got ${String(score)}`);
  }
  if (delayMs !== undefined && (typeof delayMs !== "number" || !Number.isFinite(delayMs))) {
    throw new TickqError("BAD_ARGS", `Ordered job "${name}": delayMs must be a finite number, got ${String(delayMs)}`);
  }
  // A score travels as text Redis reads back exactly: JS's shortest round-trip form.
  const payload = payloadJson(name, job.payload);
  const payloadBytes = checkJobSize(
    payload,
    runtime.maxJobBytes,
    () => `Ordered job "${name}" (id ${JSON.stringify(id.slice(0, 40))}): its payload`,
  );
  return {
    name,
    id,
    payload,
    score: score === undefined ? "" : String(score),
    delayMs: Math.max(0, Math.floor(delayMs ?? 0)),
    // Counted once: the chunking below reads it.
    bytes: payloadBytes + utf8Bytes(id),
  };
}

/** Every job checked and prepared, nothing written: a bad one throws. Synchronous unless a schema is async. */
function prepareAll(runtime: OrderedRuntime, jobs: OrderedBulkJob[]): OrderedPayload[] | Promise<OrderedPayload[]> {
  if (!Array.isArray(jobs))
    throw new TickqError("BAD_ARGS", "enqueueOrderedBulk takes an array of { name, id, payload, score?, delayMs? }");
  const checked = jobs.map((job) => checkPayload(runtime, job));
  if (!checked.some((job) => job instanceof Promise))
    return (checked as OrderedBulkJob[]).map((job) => prepare(runtime, job));
  return Promise.all(checked).then((ready) => ready.map((job) => prepare(runtime, job)));
}

/** Throws what enqueueOrderedJobs would for a bad job, writing nothing (a partitioned bulk checks all before any partition writes). */
export async function checkOrderedJobs(runtime: OrderedRuntime, jobs: OrderedBulkJob[]): Promise<void> {
  await prepareAll(runtime, jobs);
}

export async function enqueueOrderedJobs(runtime: OrderedRuntime, jobs: OrderedBulkJob[]): Promise<void> {
  const all = prepareAll(runtime, jobs);
  const prepared = all instanceof Promise ? await all : all;
  const trips: RoundTrips = { count: 0 };
  for (const chunk of chunksOf(prepared, (p) => p.bytes, CHUNK)) {
    await runCall(
      runtime,
      protocol.ordered_enqueue,
      { names: `${runtime.prefix}ordered` },
      { token: newJid(), tokenMs: runtime.replayWindowMs, payloads: chunk },
      trips,
    );
  }
}
