// tq.workflows: start a run, send an event, read runs. Each is one script
// call; `result` polls the run like enqueueAndWait polls a job (10 ms
// growing to 500 ms), the same over TCP and REST. The tickq hands in how to
// kick a tick and how to run one (WorkflowDrivers), so `start` can kick as
// enqueue does and a driving `result` ticks between its reads.
import { TickqError } from "../errors.js";
import { newJid } from "../job/codec.js";
import { hasControl, terminalJson } from "../printable.js";
import { CALL_BYTES, checkJobSize, utf8Bytes } from "../job/size.js";
import { unfaithfulJson } from "../job/json-value.js";
import { CANCEL_WAIT_MS } from "../cancel/cancel.js";
import { monotonicMs } from "../tick/clock.js";
import type { WorkflowsRuntime as Runtime } from "./runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import { WorkflowFailedError } from "./errors.js";
import { MAX_RESULT_BYTES } from "./execute.js";
import { readRun } from "./records.js";
import { workflowDefinition } from "./registry.js";
import { currentVersion } from "./versions.js";
import { checkRuns } from "./check.js";
import { createFork, readForkSource } from "./fork.js";
import { retryAllRuns, retryRun } from "./retry.js";
import { triggeredStarts } from "./triggers.js";
import { tickStarts, type TickStarts } from "./start-and-wait.js";
import { cancelChildren, type ChildRuns } from "./children.js";
import type {
  SendEventOptions,
  WorkflowCancelStatus,
  WorkflowListOptions,
  WorkflowPage,
  WorkflowRun,
  WorkflowsApi,
  WorkflowStatus,
} from "./types.js";

const MAX_ID = 1_024;
/** The longest tick a driving `result` runs between two reads of the run. */
const DRIVE_TICK_MS = 1_000;

/** What the tickq lends tq.workflows: its kick (as enqueue's) and its tick. */
export interface WorkflowDrivers {
  /** Kicks a tick when `asked` says so, or, left undefined, when the scope kicks by default. */
  kick(asked: boolean | undefined): void;
  /** Runs one tick of at most `budgetMs` (under `tickId` when given); true when it left work (report.more). */
  tick(budgetMs: number, tickId?: string): Promise<boolean>;
}
const STATUSES: readonly WorkflowStatus[] = ["running", "sleeping", "waiting", "completed", "failed", "cancelled"];
const DEFAULT_RESULT_MS = 30_000;
/** How often a cancel asks whether the run's tick heard of it. */
const CANCEL_POLL_MS = 25;

function jsonText(value: unknown, what: string): string {
  const problem = unfaithfulJson(value, what);
  if (problem) throw new TickqError("BAD_ARGS", `${what} must be a JSON value; ${problem}`);
  return JSON.stringify(value) ?? "null";
}

function checkId(id: unknown, what: string): string {
  if (typeof id !== "string" || id === "" || id.length > MAX_ID || !id.isWellFormed()) {
    throw new TickqError("BAD_ARGS", `${what} must be a non-empty string of at most ${MAX_ID} characters`);
  }
  return id;
}

/** A new run's id is printed by the CLI and logs: no control characters. Reads take any id, an older run's too. */
export function checkNewId(id: unknown, what: string): string {
  const checked = checkId(id, what);
  if (hasControl(checked))
    throw new TickqError(
      "BAD_ARGS",
      `${what} must not hold control characters (C0, C1, DEL), got ${terminalJson(checked.slice(0, 80))}`,
    );
  return checked;
}

/** The most runs one startBulk call takes: one call to Redis, all or none. */
export const MAX_BULK_RUNS = 1_000;

/** A start checked and encoded: what workflow_start(_bulk) stores. */
interface PreparedStart {
  id: string;
  name: string;
  input: string;
  version: number;
}

function prepareStart(runtime: Runtime, name: string, input: unknown, id: string | undefined): PreparedStart {
  const definition = workflowDefinition(runtime.workflows, name);
  if (!definition) {
    const known = Object.keys(runtime.workflows).join(", ") || "none";
    throw new TickqError(
      "UNKNOWN_JOB",
      `Unknown workflow "${name}": declare it in createTickq({ workflows }) (declared: ${known})`,
    );
  }
  const runId = id === undefined ? newJid() : checkNewId(id, `workflow "${name}": id`);
  const text = jsonText(input, `workflow "${name}": input`);
  checkJobSize(text, runtime.maxJobBytes, `workflow "${name}": its input`);
  return { id: runId, name, input: text, version: currentVersion(definition) };
}

/**
 * startAndWait's tick failed before Redis said whether its begin started the run. Calling again with
 * the id starts it at most once (a run already there of the same workflow is answered), so the error
 * says that, keeping the failure's own code and the failure as its cause.
 */
function unknownStart(runId: string, error: unknown): TickqError {
  const code = error instanceof TickqError ? error.code : "REDIS";
  const why = error instanceof Error ? error.message : String(error);
  return new TickqError(
    code,
    `workflows.startAndWait: its tick failed before Redis said whether run ${JSON.stringify(runId)} started (${why}); ` +
      `call startAndWait again with { id: ${JSON.stringify(runId)} }, which starts that run at most once, or read it with workflows.get`,
    { cause: error },
  );
}

function conflict(runId: string, stored: string): TickqError {
  return new TickqError(
    "CONFLICT",
    `workflow run id ${JSON.stringify(runId)} is taken by a run of workflow "${stored}"`,
  );
}

export async function startRun(runtime: Runtime, name: string, input: unknown, id?: string): Promise<string> {
  const start = prepareStart(runtime, name, input, id);
  const stored = await runCall(
    runtime,
    protocol.workflow_start,
    { run: `${runtime.prefix}wf:run:${start.id}` },
    { id: start.id, name, input: start.input, version: start.version },
  );
  if (stored !== name) throw conflict(start.id, stored);
  return start.id;
}

/** A run startBulk takes, as its caller wrote it (checked here, whatever its type said). */
export interface BulkStart {
  name: string;
  input: unknown;
  id?: string;
}

/** Checks every run before any is sent: a bad one throws and nothing starts. */
export function prepareBulk(runtime: Runtime, runs: readonly BulkStart[]): PreparedStart[] {
  // One call, all or none: at most MAX_BULK_RUNS runs and CALL_BYTES of inputs and ids.
  const bad = (why: string) => new TickqError("BAD_ARGS", `workflows.startBulk: ${why}`);
  if (!Array.isArray(runs) || runs.length > MAX_BULK_RUNS)
    throw bad(`runs must be an array of at most ${MAX_BULK_RUNS}`);
  let bytes = 0;
  const prepared = runs.map((run, k) => {
    if (typeof run?.name !== "string") throw bad(`runs[${k}] must be { name, input, id? }`);
    const p = prepareStart(runtime, run.name, run.input ?? null, run.id);
    bytes += utf8Bytes(p.input) + utf8Bytes(p.id);
    return p;
  });
  if (bytes > CALL_BYTES) throw bad(`the runs' inputs and ids are ${bytes} bytes, over ${CALL_BYTES}: split them`);
  return prepared;
}

/** Starts checked runs in one call (workflow_start_bulk.lua): their ids in order, all or none. */
export async function startPrepared(runtime: Runtime, prepared: readonly PreparedStart[]): Promise<string[]> {
  if (prepared.length === 0) return [];
  const holders = await runCall(
    runtime,
    protocol.workflow_start_bulk,
    { all: `${runtime.prefix}wf:all` },
    { runs: prepared.map((p) => ({ id: p.id, name: p.name, input: p.input, version: p.version })) },
  );
  const k = prepared.findIndex((p, i) => holders[i] !== p.name);
  if (k >= 0) throw conflict(prepared[k]!.id, holders[k] ?? "");
  return prepared.map((p) => p.id);
}

export async function startRuns(runtime: Runtime, runs: readonly BulkStart[]): Promise<string[]> {
  return startPrepared(runtime, prepareBulk(runtime, runs));
}

/** Records the event (in this partition) and resolves the waits it found; the runs it triggers are the caller's. */
export async function recordEvent(runtime: Runtime, event: string, options: SendEventOptions = {}): Promise<number> {
  const { match = "", data = null, id } = options;
  if (typeof event !== "string" || event === "")
    throw new TickqError("BAD_ARGS", "sendEvent: event must be a non-empty string");
  if (typeof match !== "string") throw new TickqError("BAD_ARGS", "sendEvent: match must be a string");
  const eventId = id === undefined ? "" : checkId(id, `sendEvent("${event}"): id`);
  const text = jsonText(data, `event "${event}": data`);
  checkJobSize(text, runtime.maxJobBytes, `event "${event}": its data`);
  // The data becomes each resolved wait's result: held to a step result's limit too.
  const bytes = utf8Bytes(text);
  if (bytes > MAX_RESULT_BYTES) {
    throw new TickqError(
      "JOB_TOO_LARGE",
      `event "${event}": its data is ${bytes} bytes of JSON; a wait's result keeps at most ${MAX_RESULT_BYTES}: send a reference to the data instead`,
    );
  }
  const waits = `${runtime.prefix}wf:wait:${utf8Bytes(event)}:${event}${match}`;
  const token = newJid();
  const { found, left } = await runCall(
    runtime,
    protocol.workflow_event,
    { waits },
    {
      token,
      tokenMs: runtime.replayWindowMs,
      event,
      match,
      data: text,
      id: eventId,
      retentionMs: runtime.eventRetentionMs,
    },
  );
  // The waits it found are fixed: the rest are resolved a chunk a call, so no one script holds Redis long.
  const delivery = `${runtime.prefix}wf:event:${token}`;
  try {
    for (let rest = left; rest > 0; ) {
      rest = await runCall(runtime, protocol.workflow_deliver, { event: delivery }, { token });
    }
  } catch (error) {
    // Recorded is sent: sent again, it would find none of these waits. Ticks resolve the rest.
    runtime.logger.warn(
      `tickq: event "${event}" found ${found} wait(s); the rest are resolved by the next ticks: ${String(error)}`,
    );
  }
  return found;
}

export async function getRun(runtime: Runtime, runId: string): Promise<WorkflowRun | undefined> {
  checkId(runId, "workflow run id");
  const reply = await runCall(
    runtime,
    protocol.workflow_read,
    { run: `${runtime.prefix}wf:run:${runId}` },
    { id: runId },
  );
  return readRun(runId, reply);
}

function checkTimeout(timeoutMs: number, what: string): number {
  if (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new TickqError(
      "BAD_ARGS",
      `workflows.${what}: timeoutMs must be a positive number of ms, got ${String(timeoutMs)}`,
    );
  }
  return timeoutMs;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `drive`: ticks between reads instead of only waiting (the waiting process keeps the run moving). */
export async function runResult(
  runtime: Runtime,
  runId: string,
  timeoutMs = DEFAULT_RESULT_MS,
  drive?: WorkflowDrivers["tick"],
): Promise<unknown> {
  const deadline = monotonicMs() + checkTimeout(timeoutMs, "result");
  for (let pause = 10; ; pause = Math.min(pause * 2, 500)) {
    const run = await getRun(runtime, runId);
    if (!run) throw new TickqError("NOT_FOUND", `no workflow run ${JSON.stringify(runId)}`);
    if (run.status === "completed") return run.output;
    if (run.status === "failed" || run.status === "cancelled")
      throw new WorkflowFailedError(runId, run.status, run.error);
    const left = deadline - monotonicMs();
    if (left <= 0) {
      throw new TickqError("WORKFLOW_TIMEOUT", `workflow run ${runId} did not end within ${timeoutMs} ms; it goes on`);
    }
    // A tick that left work is followed at once by a read and another tick; an idle one by the pause.
    if (drive && (await drive(Math.min(left, DRIVE_TICK_MS)))) pause = 5;
    else await sleep(Math.min(pause, left));
  }
}

/**
 * startAndWait: a tick of this process whose begin starts the run and claims it (one call, the run's
 * first claim included), the run's output from that tick once its end is committed; what the tick
 * left, `result` with drive goes on from.
 */
export async function startAndWaitRun(
  runtime: Runtime,
  name: string,
  input: unknown,
  options: { id?: string; timeoutMs?: number },
  tick: WorkflowDrivers["tick"],
): Promise<unknown> {
  const start = prepareStart(runtime, name, input, options.id);
  const { timeoutMs = DEFAULT_RESULT_MS } = options;
  const deadline = monotonicMs() + checkTimeout(timeoutMs, "startAndWait");
  const tickId = newJid().slice(0, 16);
  const handoff: TickStarts = { start };
  tickStarts.set(tickId, handoff);
  let failure: { error: unknown } | undefined;
  try {
    await tick(Math.min(timeoutMs, DRIVE_TICK_MS), tickId);
  } catch (error) {
    failure = { error };
  } finally {
    tickStarts.delete(tickId);
  }
  const { started, output } = handoff;
  // A tick that failed after its begin started the run (finish refused, Redis gone past its patience):
  // the run is there, and the caller may hold no id to reach it, so go on from it as `result` does.
  // Before begin answered, whether it started the run is unknown: the error names the run's id, which
  // a caller that passed none could not know, so that it can try again without starting a second run.
  if (failure && !started) throw unknownStart(start.id, failure.error);
  if (failure && started?.full) throw failure.error;
  if (failure) {
    runtime.logger.warn(
      `tickq: workflows.startAndWait: the tick that started run ${start.id} failed (${String(failure.error)}); the run is driven on`,
    );
  }
  // A tick that did not begin (`maxParallel` ticks live) started nothing: a start of its own.
  if (!started) await startRun(runtime, name, input, start.id);
  else if (started.full) throw new TickqError("REDIS_FULL", "Redis is full: startAndWait started no run");
  else if (started.holders[0] !== name) throw conflict(start.id, started.holders[0]!);
  if (output !== undefined) return JSON.parse(output);
  return runResult(runtime, start.id, Math.max(1, deadline - monotonicMs()), tick);
}

export async function listRuns(runtime: Runtime, options: WorkflowListOptions = {}): Promise<WorkflowPage> {
  const { status, name = "", cursor, limit = 50 } = options;
  if (status !== undefined && !STATUSES.includes(status)) {
    throw new TickqError(
      "BAD_STATE",
      `workflows.list: status must be one of ${STATUSES.join(", ")}, got ${JSON.stringify(status)}`,
    );
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
    throw new TickqError(
      "BAD_ARGS",
      `workflows.list: limit must be a whole number from 1 to 500, got ${String(limit)}`,
    );
  }
  if (typeof name !== "string") throw new TickqError("BAD_ARGS", "workflows.list: name must be a string");
  const offset = cursor === undefined ? 0 : Number(cursor);
  if (!Number.isInteger(offset) || offset < 0)
    throw new TickqError("BAD_CURSOR", `workflows.list: bad cursor ${JSON.stringify(cursor)}`);
  const index = `${runtime.prefix}wf:${status === undefined ? "all" : `s:${status}`}`;
  const reply = await runCall(runtime, protocol.workflow_list, { index }, { name, offset, limit });
  return {
    runs: reply.runs.map((r) => ({
      id: r.id,
      name: r.name,
      status: r.status as WorkflowStatus,
      createdAt: Number(r.created),
      updatedAt: Number(r.updated),
    })),
    ...(reply.next >= 0 ? { cursor: String(reply.next) } : {}),
  };
}

/**
 * Cancels the run and, when a tick holds it, waits until that tick says it heard (its next extend, within
 * about cancelCheckMs and a round trip, as tq.jobs.cancel waits for a running job): once this answers
 * "cancelled", no step of the run starts. "cancelling" past CANCEL_WAIT_MS: the run is cancelled, but its
 * tick has not said so yet (its event loop is held up); it starts no step once its lease is gone.
 */
export async function cancelRun(runtime: Runtime, runId: string): Promise<WorkflowCancelStatus> {
  checkId(runId, "workflow run id");
  const deadline = monotonicMs() + CANCEL_WAIT_MS;
  for (;;) {
    const status = await runCall(
      runtime,
      protocol.workflow_cancel,
      { run: `${runtime.prefix}wf:run:${runId}` },
      { id: runId },
    );
    if (status === "") throw new TickqError("NOT_FOUND", `no workflow run ${JSON.stringify(runId)}`);
    if (status !== "cancelling" || monotonicMs() >= deadline) {
      if (status === "cancelled" || status === "cancelling") await cancelChildren(runtime, runId, childRuns);
      return status as WorkflowCancelStatus;
    }
    await sleep(CANCEL_POLL_MS);
  }
}

/** What step.invokeWorkflow needs of the client (children.ts): start, read and cancel a run. */
export const childRuns: ChildRuns = {
  start: (runtime, name, input, id) => startRun(runtime, name, input, id),
  status: (runtime, id) => getRun(runtime, id),
  cancel: (runtime, id) => cancelRun(runtime, id),
};

export function workflowsApi(runtime: Runtime, drivers: WorkflowDrivers): WorkflowsApi {
  return {
    async start(name, input, options) {
      const runId = await startRun(runtime, name, input, options?.id);
      drivers.kick(options?.kick);
      return runId;
    },
    async startBulk(runs, options) {
      const ids = await startRuns(runtime, runs);
      if (ids.length > 0) drivers.kick(options?.kick);
      return ids;
    },
    async sendEvent(event, options) {
      const found = await recordEvent(runtime, event, options);
      const starts = triggeredStarts(runtime.workflows, event, options?.data ?? null, options?.id);
      for (const { name, id } of starts) await startRun(runtime, name, options?.data ?? null, id);
      if (starts.length > 0) drivers.kick(undefined);
      return found;
    },
    startAndWait: (name, input, options = {}) => startAndWaitRun(runtime, name, input, options, drivers.tick) as never,
    get: (runId) => getRun(runtime, runId),
    result: (runId, options) =>
      runResult(runtime, runId, options?.timeoutMs, options?.drive === true ? drivers.tick : undefined) as never,
    list: (options) => listRuns(runtime, options),
    cancel: (runId) => cancelRun(runtime, runId),
    check: (options) => checkRuns(runtime, options),
    retry: (runId) => retryRun(runtime, runId),
    async fork(runId, options) {
      checkId(runId, "workflow run id");
      const id = options?.id === undefined ? newJid() : checkNewId(options.id, "workflows.fork: id");
      const forked = await createFork(runtime, await readForkSource(runtime, runId, options), id, options.input);
      drivers.kick(undefined);
      return forked;
    },
    retryAll: (options) =>
      retryAllRuns(runtime, options, async (cursor) => {
        const page = await listRuns(runtime, { status: "failed", name: options?.name, cursor, limit: 500 });
        return { ids: page.runs.map((r) => r.id), cursor: page.cursor };
      }),
  };
}
