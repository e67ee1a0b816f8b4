// Enqueue: validate everything first, so a bad job in a bulk call throws
// before anything is written, then push in as few round trips as possible
// (enqueue.lua takes many jobs per call).
//
// Idempotent: every call carries a token that enqueue.lua remembers for
// `replayWindowMs`, so a call the client resends (a lost reply) pushes
// nothing twice; a jid the caller chose is remembered for `idWindowMs`, so
// retrying a timed-out enqueue with the same jid never doubles the job.
//
// Flow jobs (src/flow/): their keys are computed and checked here, before
// anything is written; a duplicate of an until-executed or coalesce key
// gets the jid of the job that holds the key.
//
// Args: a job with a schema stores the schema's output (src/job/schema-check.ts);
// every job's args must arrive as they were sent (json-value.ts).
import { TickqError } from "../errors.js";
import { FLOW_FIELD, type FlowPlan, flowDescriptor } from "../job/flow-descriptor.js";
import { planFlow } from "../flow/plan.js";
import { expiryHead } from "../expiry/enqueue.js";
import { planDebounce, pushDebounced, type DebouncePlan } from "../debounce/enqueue.js";
import { encodeNewJob, newJid } from "../job/codec.js";
import { checkJobSize, chunksOf } from "../job/size.js";
import { unfaithfulJson } from "../job/json-value.js";
import { checkBySchema } from "../job/schema-check.js";
import { orderFields } from "../order/fields.js";
import { isPrintableName } from "../names.js";
import { terminalJson } from "../printable.js";
import { checkKnownKeys } from "../options.js";
import { checkQueueAccepted } from "../tick/accepted-queues.js";
import type { RoundTrips } from "../redis/adapter.js";
import { definitionOf, type Runtime } from "../tick/runtime.js";
import { isUndeclared } from "./undeclared-job.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { SendSpan } from "../telemetry/tracing.js";
import type { BulkJob } from "../job/enqueue-options.js";
import type { RedisReply } from "../redis/types.js";

/** The fields enqueue writes; enqueue.lua appends created_at and enqueued_at. */
type NewJob = {
  class: string;
  args: unknown[];
  jid: string;
  queue: string;
  /** Absent for a job defined elsewhere (undeclared-job.ts): the tick takes its definition's. */
  retry: boolean | number | undefined;
  [field: string]: unknown;
};

/** Jobs per enqueue.lua call: keeps one script's run short on a busy Redis. */
const CHUNK = 1_000;

interface Prepared {
  jid: string;
  /** Bytes of its stored text, before the flow descriptor (a few hundred bytes more at most). */
  bytes: number;
  /** enqueue.lua's entry for the job (src/protocol/enqueue.ts). */
  args: { queue: string; delayMs: number; atMs: number; jid: string; job: string };
  /** A flow job: its JSON is written once its descriptor is (flowDescriptor may hash). */
  flow?: { plan: FlowPlan; payload: NewJob };
  /** A debounced job (src/debounce/): sent by debounce.lua, one call each. */
  debounce?: DebouncePlan;
}

const JOB_KEYS: Readonly<Record<keyof BulkJob, true>> = {
  name: true,
  args: true,
  jid: true,
  queue: true,
  delayMs: true,
  at: true,
  retry: true,
  kick: true,
  unique: true,
  expiresInMs: true,
  priority: true,
  group: true,
};

/** A job's name and args, checked; `args` is its schema's output when it has a schema. */
function checkArgs(runtime: Runtime, job: BulkJob): BulkJob | Promise<BulkJob> {
  if (typeof job !== "object" || job === null) throw new TickqError("BAD_ARGS", "a job is { name, args, …options }");
  const definition = definitionOf(runtime, job.name);
  if (!definition) {
    const known = Object.keys(runtime.jobs).join(", ") || "none";
    throw new TickqError(
      "UNKNOWN_JOB",
      `Unknown job "${job.name}": register it in createTickq({ jobs }) (registered: ${known})`,
    );
  }
  checkKnownKeys(job, JOB_KEYS, `Job "${job.name}"`, "BAD_ARGS");
  if (!Array.isArray(job.args)) {
    throw new TickqError(
      "BAD_ARGS",
      `Job "${job.name}": args must be an array, got ${job.args === null ? "null" : typeof job.args}`,
    );
  }
  if (!definition.schema) return checkJson(job, job.args);
  const output = checkBySchema(definition.schema, job.args, `Job "${job.name}"`, "args");
  return output instanceof Promise ? output.then((args) => checkJson(job, args)) : checkJson(job, output);
}

function checkJson(job: BulkJob, args: unknown): BulkJob {
  if (!Array.isArray(args))
    throw new TickqError(
      "BAD_ARGS",
      `Job "${job.name}": its schema's output must be an array of args, got ${args === null ? "null" : typeof args}`,
    );
  const problem = unfaithfulJson(args, "args");
  if (problem) throw new TickqError("BAD_ARGS", `Job "${job.name}": ${problem}`);
  return args === job.args ? job : { ...job, args };
}

/** `fields`: written into the job after its own (enqueueAndWait's awaited mark, src/results/; the trace context, src/telemetry/). */
function prepare(runtime: Runtime, job: BulkJob, fields?: Record<string, unknown>): Prepared {
  const definition = definitionOf(runtime, job.name)!;
  const queue = job.queue ?? definition.queue ?? "default";
  if (!isPrintableName(queue)) {
    throw new TickqError(
      "BAD_ARGS",
      `Job "${job.name}": queue must be a non-empty name without spaces or control characters, got ${terminalJson(queue)}`,
    );
  }
  checkQueueAccepted(runtime.acceptedQueues, job.name, queue);
  if (job.jid !== undefined && !isPrintableName(job.jid, 128)) {
    throw new TickqError(
      "BAD_ARGS",
      `Job "${job.name}": jid must be a non-empty string of at most 128 characters without spaces or control characters`,
    );
  }
  const atMs = job.at === undefined ? 0 : job.at.getTime();
  if (Number.isNaN(atMs)) throw new TickqError("BAD_ARGS", `Job "${job.name}": \`at\` is an invalid Date`);
  const delayMs = job.delayMs ?? 0;
  if (!Number.isFinite(delayMs)) throw new TickqError("BAD_ARGS", `Job "${job.name}": delayMs must be a finite number`);
  // Under partitions, one that hashes to this runtime's partition.
  const jid = job.jid ?? runtime.partition?.newJid() ?? newJid();
  const plan = planFlow(job.name, definition, job.args, job.unique);
  const payload: NewJob = {
    ...expiryHead(job.name, job.expiresInMs, plan !== undefined),
    class: job.name,
    args: job.args,
    jid,
    queue,
    retry: job.retry ?? definition.retry ?? (isUndeclared(definition.perform) ? undefined : true),
    ...orderFields(job.name, definition, job.args, job),
    ...fields,
  };
  const json = encodeNewJob(payload);
  const bytes = checkJobSize(json, runtime.maxJobBytes, `Job "${job.name}"`);
  const prepared: Prepared = {
    jid,
    bytes,
    args: { queue, delayMs: Math.floor(delayMs), atMs: Math.floor(atMs), jid: job.jid ?? "", job: json },
  };
  if (plan) prepared.flow = { plan, payload };
  const debounce = planDebounce(job, definition);
  if (debounce) prepared.debounce = debounce;
  return prepared;
}

/** A flow job's JSON opens with its descriptor (src/job/flow-descriptor.ts). */
async function withFlow(p: Prepared): Promise<void> {
  if (!p.flow) return;
  const { plan, payload } = p.flow;
  const descriptor = await flowDescriptor(plan, p.jid, payload.class, payload.queue);
  p.args.job = encodeNewJob({ [FLOW_FIELD]: descriptor, ...payload });
}

/** enqueue.lua's reply: "1"/"0"/"2" per job, then the holder's jid of each "2" (a duplicate). */
function holdersOf(reply: RedisReply, chunk: Prepared[]): void {
  const [flags = "", ...holders] = String(reply).split(" ");
  let next = 0;
  for (let k = 0; k < chunk.length; k++) {
    if (flags[k] === "2") chunk[k]!.jid = decodeURIComponent(holders[next++] ?? "");
  }
}

export async function enqueueJobs(
  runtime: Runtime,
  jobs: BulkJob[],
  fields?: Record<string, unknown>,
): Promise<string[]> {
  if (!Array.isArray(jobs)) throw new TickqError("BAD_ARGS", "enqueueBulk takes an array of { name, args, … }");
  if (!runtime.tracing) return pushJobs(runtime, jobs, fields);
  const span = runtime.tracing.send();
  try {
    const jids = await pushJobs(runtime, jobs, { ...fields, ...span.fields }, span);
    span.end();
    return jids;
  } catch (error) {
    span.end(error);
    throw error;
  }
}

/**
 * Every job checked and prepared, nothing written: a bad one throws. Synchronous unless a schema is
 * async, so an enqueue's call leaves before anything the caller starts next (a tick).
 */
function prepareAll(
  runtime: Runtime,
  jobs: BulkJob[],
  fields: Record<string, unknown> | undefined,
): Prepared[] | Promise<Prepared[]> {
  const checked = jobs.map((job) => checkArgs(runtime, job));
  if (!runtime.schemas) return (checked as BulkJob[]).map((job) => prepare(runtime, job, fields));
  return Promise.all(checked).then((ready) => ready.map((job) => prepare(runtime, job, fields)));
}

/** Throws what enqueueJobs would for a bad job, writing nothing (a partitioned bulk checks all before any partition writes). */
export async function checkJobs(runtime: Runtime, jobs: BulkJob[]): Promise<void> {
  if (!Array.isArray(jobs)) throw new TickqError("BAD_ARGS", "enqueueBulk takes an array of { name, args, … }");
  await prepareAll(runtime, jobs, undefined);
}

/** `fields`: written into every job after its own (the awaited mark of src/results/, the trace context of src/telemetry/). */
async function pushJobs(
  runtime: Runtime,
  jobs: BulkJob[],
  fields: Record<string, unknown> | undefined,
  span?: SendSpan,
): Promise<string[]> {
  const all = prepareAll(runtime, jobs, fields);
  const prepared = all instanceof Promise ? await all : all;
  span?.sent(listOf(prepared, queueOf), listOf(prepared, jidOf));
  if (prepared.some((p) => p.flow)) await Promise.all(prepared.map(withFlow));
  const trips: RoundTrips = { count: 0 };
  for (const p of prepared)
    if (p.debounce) p.jid = await pushDebounced(runtime, p.debounce, { jid: p.jid, json: p.args.job }, trips);
  const plain = prepared.some((p) => p.debounce) ? prepared.filter((p) => !p.debounce) : prepared;
  for (const chunk of chunksOf(plain, bytesOf, CHUNK)) {
    const reply = await runCall(
      runtime,
      protocol.enqueue,
      { queues: runtime.keys.queues, schedule: runtime.keys.schedule },
      {
        token: newJid(),
        tokenMs: runtime.replayWindowMs,
        idWindowMs: runtime.idWindowMs,
        jobs: chunk.map((p) => p.args),
      },
      trips,
    );
    holdersOf(reply, chunk);
  }
  return listOf(prepared, jidOf);
}

// One function for every enqueue, not a closure each: chunksOf's optimized code inlined the first
// enqueue's closure and threw itself away at the next ("wrong call target", bench/drain-warmup.ts traced).
const bytesOf = (p: Prepared) => p.bytes;
const jidOf = (p: Prepared) => p.jid;
const queueOf = (p: Prepared) => p.args.queue;

/**
 * A loop of push, not `map`: optimized, an inlined `map` allocates its result at once, inline only up
 * to some 16,000 elements, so a larger bulk threw pushJobs' optimized code away at the end of every
 * enqueue ("out of bounds", bench/drain-warmup.ts under --trace-deopt) and compiled it again.
 */
function listOf<T>(prepared: readonly Prepared[], pick: (p: Prepared) => T): T[] {
  const out: T[] = [];
  for (let k = 0; k < prepared.length; k++) out.push(pick(prepared[k]!));
  return out;
}
