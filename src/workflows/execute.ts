// One execution of a run: the function from the top, its steps driven in
// rounds. A round waits until the function settles or stops at new steps,
// runs those steps at once (Promise.all gives several), and commits their
// results in the tick's next workflow call (batched with other runs'); once
// committed, the same invocation goes on with the results, as a replay from
// the top would, without running the function again. A sleep or wait parks
// the run; a failed try schedules a retry; the tick's deadline yields. Each
// ends the invocation: the next execution replays from the top.
// A result is never handed to the function before Redis applied its commit:
// the code between steps may act on it (write it somewhere, pass it to the
// next step), and a commit that then failed would let a replay store another
// value than the one acted on (bench/chaos/workflow-phase.ts checks that no
// step result is read back with two values). So a run pays a call per round
// of steps; what ends an execution (its output, a park, a failure) may ride
// on the tick's finish (pass.ts). Results the claim left in Redis are read
// as the replay reaches them (left-results.ts).
import { isNonDeterministic } from "./errors.js";
import type { StepRecord } from "./records.js";
import { replay, type PendingStep, type Replay } from "./replay.js";
import type { StepContext, WorkflowDefinition, WorkflowFailure } from "./types.js";
import { defaultBackoff } from "../tick/retry.js";
import { describeError, stackOf } from "./describe.js";
import { utf8Bytes } from "../job/size.js";
import type { Invoker } from "./invoke.js";
import type { ChildInvoker } from "./children.js";
import { stepIdempotencyKey } from "./idempotency-key.js";
import { leftResults, type ReadRecords } from "./left-results.js";

/** Largest step result or run output, in bytes of JSON. */
export const MAX_RESULT_BYTES = 256 * 1024;
/** Most bytes a run's stored step records may hold together (results and their few fields). */
export const MAX_RUN_BYTES = 32 * 1024 * 1024;
/** Retries of a failing step when neither it nor its workflow says. */
export const DEFAULT_STEP_RETRY = 3;

export interface ClaimedRun {
  id: string;
  name: string;
  input: string;
  fence: number;
  steps: Map<string, StepRecord>;
  /** How its steps' idempotency keys are formed (idempotency-key.ts). */
  keyForm: string;
  /** The workflow version it started on, whose code runs it. */
  version: number;
  /** Steps whose results the claim left in Redis, with their records' sizes (none: every result came). */
  left?: Map<string, number>;
  /** Every stored record's size in bytes (none: counted from `steps`). */
  sizes?: Map<string, number>;
}

/** One execution's commit (lib/workflows/commit-runs.lua has the dispositions). */
export interface Commit {
  id: string;
  fence: string;
  disposition: "c" | "y" | "r" | "v" | "p" | "d" | "f";
  extra: string;
  steps: { name: string; record: string }[];
  parks: { step: string; kind: string; seq: number; ms: string; event: string; match: string }[];
}

export interface ExecutionEnv {
  /** Sends the commit with the tick's next workflow call; true when Redis applied it (the run was still this execution's). */
  commit(commit: Commit): Promise<boolean>;
  /** The signal for a round of steps starting now; `roundDone` once it ended. */
  roundSignal(): AbortSignal;
  roundDone(): void;
  /** How long steps may go on after their signal aborted before the execution is abandoned. */
  graceMs: number;
  /** True once the tick should start no more steps. */
  stopping(): boolean;
  /** Redis' time in ms. */
  nowMs(): number;
  warn(message: string): void;
  /** Runs a job for step.invoke (invoke.ts). */
  invoke: Invoker;
  /** Runs a child workflow for step.invokeWorkflow (children.ts). */
  invokeWorkflow?: ChildInvoker;
  /** Reads the run's stored records whose results its claim left in Redis. */
  readRecords: ReadRecords;
  /** The tick's step slots (pass.ts): a step's fn runs in one; none given, steps run without. */
  slots?: StepSlots;
}

/** At most so many step functions at once across a tick's executions: take before a fn, give after. */
export interface StepSlots {
  /** Undefined when a slot was free (taken now), else a promise that resolves once one is handed over. */
  take(): Promise<void> | undefined;
  /** Hands the slot on; called unbound (a step's promise takes it as its handler). */
  readonly give: () => void;
}

const schedule: (f: () => void) => void =
  typeof setImmediate === "function" ? (f) => setImmediate(f) : (f) => setTimeout(f, 0);
let nextMacrotask: Promise<void> | undefined;
/**
 * After every microtask: each step a Promise.all (or any chain of resolved promises) reaches has joined.
 * One macrotask serves every execution that waits in the same turn (a tick's 100 runs waited on 100;
 * bench/workflow-rate.ts measures the step).
 */
function macrotask(): Promise<void> {
  nextMacrotask ??= new Promise((resolve) =>
    schedule(() => {
      nextMacrotask = undefined;
      resolve();
    }),
  );
  return nextMacrotask;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/** How an execution ended. */
export type ExecutionEnd = "completed" | "failed" | "parked" | "retrying" | "yielded" | "lost" | "abandoned";

export async function executeRun(
  run: ClaimedRun,
  definition: WorkflowDefinition<never, unknown>,
  env: ExecutionEnv,
): Promise<{ end: ExecutionEnd; steps: number }> {
  const watch = new RoundWatch();
  try {
    return await executeRounds(run, definition, env, watch);
  } finally {
    watch.stop();
  }
}

async function executeRounds(
  run: ClaimedRun,
  definition: WorkflowDefinition<never, unknown>,
  env: ExecutionEnv,
  watch: RoundWatch,
): Promise<{ end: ExecutionEnd; steps: number }> {
  const child = env.invokeWorkflow;
  const r = replay(
    run.steps,
    env.invoke,
    run.left && run.left.size > 0 ? leftResults(run.steps, run.left, (names) => env.readRecords(names)) : undefined,
    child && ((workflowName, input, ctx, id) => child(run.id, workflowName, input, ctx, id)),
  );
  const sizes = run.sizes ?? new Map([...run.steps].map(([name, record]) => [name, utf8Bytes(JSON.stringify(record))]));
  let storedBytes = [...sizes.values()].reduce((sum, bytes) => sum + bytes, 0);
  let settled: Settled | undefined;
  const input = JSON.parse(run.input) as never;
  // Read through `settled` once the function ends (after the macrotask the rounds wait on).
  void Promise.resolve()
    .then(() => definition.run(input, r.step))
    .then(
      (value) => void (settled = { ok: true, value }),
      (error: unknown) => void (settled = { ok: false, error }),
    );
  const base = { id: run.id, fence: String(run.fence), extra: "", steps: [] as Commit["steps"], parks: [] };
  let stepsRun = 0;

  for (;;) {
    // Until the function settles or stops at steps (or awaits something else while the tick must stop).
    // A read of stored results under way ends the wait by itself: no need to turn the loop meanwhile.
    // The function settling is read after the macrotask (it ends in the microtasks before it): no race a round.
    do if (!settled) await (r.reading() ?? macrotask());
    while (!settled && !r.fatal() && !r.halted() && r.pending.length === 0 && !env.stopping());
    const fatal = r.fatal();
    if (fatal) return { end: await failRun(run, definition, env, input, base, failureOf(fatal)), steps: stepsRun };
    const halted = r.halted();
    if (halted?.lost) return { end: "lost", steps: stepsRun };
    if (halted) {
      // Another execution replays from the top, once this one gave the run back.
      env.warn(
        `tickq: workflow run ${run.id}: reading its stored step results failed: ${describeError(halted.error).message}`,
      );
      const ok = await env.commit({ ...base, disposition: "y" });
      return { end: ok ? "yielded" : "lost", steps: stepsRun };
    }
    if (settled) {
      if (!settled.ok)
        return { end: await failRun(run, definition, env, input, base, failureOf(settled.error)), steps: stepsRun };
      const unreached = r.unreached();
      if (unreached.length > 0) {
        const message = `the run completed steps the code no longer reaches: ${unreached.map((n) => `"${n}"`).join(", ")}`;
        return {
          end: await failRun(run, definition, env, input, base, { name: "TickqNonDeterministic", message }),
          steps: stepsRun,
        };
      }
      const output = JSON.stringify(settled.value) ?? "null";
      if (utf8Bytes(output) > MAX_RESULT_BYTES) {
        return {
          end: await failRun(run, definition, env, input, base, tooLarge("the run's output", utf8Bytes(output))),
          steps: stepsRun,
        };
      }
      const ok = await env.commit({ ...base, disposition: "d", extra: output });
      return { end: ok ? "completed" : "lost", steps: stepsRun };
    }
    if (env.stopping()) {
      const ok = await env.commit({ ...base, disposition: "y" });
      return { end: ok ? "yielded" : "lost", steps: stepsRun };
    }

    const round = r.pending.splice(0);
    const runs = round.every(isRunStep) ? round : round.filter(isRunStep);
    const signal = env.roundSignal();
    // A round of one step (steps awaited one by one) runs it without a Promise.all.
    const outcomes = await watch.round<StepOutcome | StepOutcome[]>(
      runs.length === 1
        ? runStep(run, definition, runs[0]!, signal, env)
        : Promise.all(runs.map((p) => runStep(run, definition, p, signal, env))),
      signal,
      env.graceMs,
    );
    env.roundDone();
    // Steps that ignored the abort: no commit, the run stays this tick's until its lease expires (as jobs).
    if (!outcomes) return { end: "abandoned", steps: stepsRun + runs.length };
    stepsRun += runs.length;
    const { steps, retryMs, interrupted, failed, roundBytes } = roundOf(outcomes, sizes, storedBytes);
    if (failed) return { end: await failRun(run, definition, env, input, base, failed, steps), steps: stepsRun };
    if (retryMs !== undefined) {
      const ok = await env.commit({
        ...base,
        steps,
        disposition: "r",
        extra: String(Math.max(0, Math.round(retryMs))),
      });
      return { end: ok ? "retrying" : "lost", steps: stepsRun };
    }
    if (interrupted) {
      const ok = await env.commit({ ...base, steps, disposition: "y" });
      return { end: ok ? "yielded" : "lost", steps: stepsRun };
    }
    if (runs !== round) {
      const parks = round.filter((p) => !isRunStep(p)).map((p) => parkOf(p, env.nowMs()));
      const ok = await env.commit({ ...base, steps, parks, disposition: "p" });
      return { end: ok ? "parked" : "lost", steps: stepsRun };
    }
    const commit: Commit = { id: base.id, fence: base.fence, disposition: "c", extra: "", steps, parks: base.parks };
    if (!(await env.commit(commit))) return { end: "lost", steps: stepsRun };
    storedBytes = roundBytes;
    if (Array.isArray(outcomes)) for (const o of outcomes) completed(o, sizes, r);
    else completed(outcomes, sizes, r);
  }
}

const isRunStep = (p: PendingStep): p is Extract<PendingStep, { kind: "run" }> => p.kind === "run";

/** A step of a round whose commit Redis applied: the function goes on with its result. */
function completed(o: StepOutcome, sizes: Map<string, number>, r: Replay): void {
  if (o.kind !== "completed") return;
  sizes.set(o.name, o.bytes);
  r.completed(o.name, o.stored);
  o.resolve(o.stored.result);
}

/** Fails the run: its onFailure handler first (left at the deadline if it never settles), then the commit. */
async function failRun(
  run: ClaimedRun,
  definition: WorkflowDefinition<never, unknown>,
  env: ExecutionEnv,
  input: never,
  base: Omit<Commit, "disposition">,
  failure: WorkflowFailure,
  steps: Commit["steps"] = [],
): Promise<ExecutionEnd> {
  // A handler that never settles is left at the tick's deadline (and graceMs), as a stuck step is.
  const signal = env.roundSignal();
  const handled = await settledOrAbandoned(
    Promise.resolve()
      .then(() => definition.onFailure?.(input, failure, failure.step))
      .then(
        () => true,
        (error: unknown) => {
          env.warn(`tickq: workflow ${run.name} run ${run.id}: onFailure threw: ${describeError(error).message}`);
          return true;
        },
      ),
    signal,
    env.graceMs,
  );
  env.roundDone();
  if (handled === undefined)
    env.warn(`tickq: workflow ${run.name} run ${run.id}: onFailure did not settle; the run fails`);
  const ok = await env.commit({ ...base, steps, disposition: "f", extra: JSON.stringify(failure) });
  return ok ? "failed" : "lost";
}

/**
 * A round's outcomes (one, or a list), as its commit carries them: the steps to store (a completed or retried
 * step's outcome is its own entry: its `name` and `record`), and whether it fails, retries or yields.
 */
function roundOf(outcomes: StepOutcome | StepOutcome[], sizes: Map<string, number>, storedBytes: number) {
  const steps: Commit["steps"] = [];
  let retryMs: number | undefined;
  let interrupted = false;
  let failed: WorkflowFailure | undefined;
  let roundBytes = storedBytes;
  const list = Array.isArray(outcomes) ? outcomes : undefined;
  for (let k = 0, n = list ? list.length : 1; k < n; k++) {
    const o = list ? list[k]! : (outcomes as StepOutcome);
    if (o.kind === "failed") failed ??= o.failure;
    else if (o.kind === "interrupted") interrupted = true;
    else {
      roundBytes += o.bytes - (sizes.get(o.name) ?? 0);
      if (roundBytes > MAX_RUN_BYTES) {
        failed ??= { ...runTooLarge(o.name, roundBytes), step: o.name };
        continue;
      }
      steps.push(o);
      if (o.kind === "retry") retryMs = Math.min(retryMs ?? o.delayMs, o.delayMs);
    }
  }
  return { steps, retryMs, interrupted, failed, roundBytes };
}

/**
 * settledOrAbandoned for an execution's rounds: one abort listener an execution (while its rounds' signal
 * stays the same), not one added and removed a round, and its handlers made once an execution: a round makes
 * its promise and nothing else (bench/workflow-instructions.ts counts the step). One round at a time: the
 * next starts once this one answered, and an abandoned round ends its execution.
 */
class RoundWatch {
  private watched: AbortSignal | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private graceMs = 0;
  private settle: ((value: unknown) => void) | undefined;
  private fail: ((error: unknown) => void) | undefined;
  private readonly onAbort = this.aborted.bind(this);
  private readonly onGrace = this.abandon.bind(this);
  private readonly onValue = this.answer.bind(this);
  private readonly onError = this.reject.bind(this);

  /** The round's outcomes, or undefined once `signal` aborted and `graceMs` passed without them. */
  round<T>(outcomes: Promise<T>, signal: AbortSignal, graceMs: number): Promise<T | undefined> {
    if (signal !== this.watched) {
      this.watched?.removeEventListener("abort", this.onAbort);
      this.watched = signal;
      signal.addEventListener("abort", this.onAbort, { once: true });
    }
    this.graceMs = graceMs;
    const answered = new Promise<T | undefined>((resolve, reject) => {
      this.settle = resolve as (value: unknown) => void;
      this.fail = reject;
    });
    if (signal.aborted) this.aborted();
    outcomes.then(this.onValue, this.onError);
    return answered;
  }

  /** The execution ended: its listener goes. */
  stop(): void {
    this.watched?.removeEventListener("abort", this.onAbort);
    this.watched = undefined;
    this.end();
  }

  private aborted(): void {
    if (this.settle !== undefined) this.timer ??= setTimeout(this.onGrace, this.graceMs);
  }

  private abandon(): void {
    const settle = this.settle;
    this.end();
    settle?.(undefined);
  }

  private answer(value: unknown): void {
    const settle = this.settle;
    this.end();
    settle?.(value);
  }

  private reject(error: unknown): void {
    const fail = this.fail;
    this.end();
    fail?.(error);
  }

  private end(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.settle = undefined;
    this.fail = undefined;
  }
}

/** The round's outcomes, or undefined once `signal` aborted and `graceMs` passed without them. */
function settledOrAbandoned<T>(round: Promise<T>, signal: AbortSignal, graceMs: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort = () => {};
  const abandoned = new Promise<undefined>((resolve) => {
    onAbort = () => void (timer = setTimeout(() => resolve(undefined), graceMs));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([round, abandoned]).finally(() => {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  });
}

type StepOutcome =
  | {
      kind: "completed";
      name: string;
      /** The record as the function and later replays read it. */
      stored: StepRecord;
      /** The record's text, as its commit stores it. */
      record: string;
      bytes: number;
      resolve: (value: unknown) => void;
    }
  | { kind: "retry"; name: string; record: string; bytes: number; delayMs: number }
  | { kind: "failed"; failure: WorkflowFailure }
  | { kind: "interrupted" };

function runStep(
  run: ClaimedRun,
  definition: WorkflowDefinition<never, unknown>,
  p: Extract<PendingStep, { kind: "run" }>,
  signal: AbortSignal,
  env: ExecutionEnv,
): Promise<StepOutcome> {
  const slots = env.slots;
  if (!slots) return runStepFn(run, definition, p, signal, env);
  const waiting = slots.take();
  if (waiting) return waiting.then(() => inSlot(slots, run, definition, p, signal, env));
  return inSlot(slots, run, definition, p, signal, env);
}

/** A step's fn in the slot it took, given back once the step settles (no async frame of its own a step). */
function inSlot(
  slots: StepSlots,
  run: ClaimedRun,
  definition: WorkflowDefinition<never, unknown>,
  p: Extract<PendingStep, { kind: "run" }>,
  signal: AbortSignal,
  env: ExecutionEnv,
): Promise<StepOutcome> {
  // A step that waited for its slot past the tick's deadline does not start.
  if (signal.aborted) {
    slots.give();
    return Promise.resolve({ kind: "interrupted" });
  }
  const outcome = runStepFn(run, definition, p, signal, env);
  outcome.then(slots.give, slots.give);
  return outcome;
}

async function runStepFn(
  run: ClaimedRun,
  definition: WorkflowDefinition<never, unknown>,
  p: Extract<PendingStep, { kind: "run" }>,
  signal: AbortSignal,
  env: ExecutionEnv,
): Promise<StepOutcome> {
  const attempts = (run.steps.get(p.name)?.attempts ?? 0) + 1;
  const idempotencyKey = stepIdempotencyKey(run.id, run.keyForm, p.name);
  const ctx: StepContext = { signal, attempt: attempts, fence: run.fence, idempotencyKey };
  const startedAt = Math.round(env.nowMs());
  let value: unknown;
  try {
    value = await p.fn(ctx);
  } catch (error) {
    if (signal.aborted) return { kind: "interrupted" };
    const retries = p.retry ?? definition.retry ?? DEFAULT_STEP_RETRY;
    const { name, message } = describeError(error);
    if (attempts > retries) return { kind: "failed", failure: { name, message, step: p.name } };
    const record: StepRecord = {
      status: "failed",
      seq: p.seq,
      attempts,
      startedAt,
      endedAt: Math.round(env.nowMs()),
      error: { name, message, stack: stackOf(error) },
    };
    const text = JSON.stringify(record);
    return {
      kind: "retry",
      name: p.name,
      record: text,
      bytes: utf8Bytes(text),
      delayMs: backoffMs(definition, attempts - 1, error),
    };
  }
  let text: string | undefined;
  try {
    text = value === undefined ? undefined : JSON.stringify(value);
  } catch (error) {
    const why = describeError(error).message;
    return {
      kind: "failed",
      failure: {
        name: "TickqError",
        message: `step "${p.name}" returned a value that is not JSON: ${why}`,
        step: p.name,
      },
    };
  }
  const resultBytes = text === undefined ? 0 : utf8Bytes(text);
  if (resultBytes > MAX_RESULT_BYTES) {
    return { kind: "failed", failure: { ...tooLarge(`step "${p.name}"'s result`, resultBytes), step: p.name } };
  }
  const endedAt = Math.round(env.nowMs());
  // The value the run goes on with is the one a replay would read: parsed from the result's text.
  const result = text === undefined ? undefined : sameOnceParsed(value) ? value : JSON.parse(text);
  const record: StepRecord = { status: "completed", seq: p.seq, attempts, startedAt, endedAt, result };
  // The record's text is its small fields, then the result's text as measured (written last: run-state.lua
  // reads the fields before `,"result":`).
  const head = completedHead(p.seq, attempts, startedAt, endedAt);
  const recordText = text === undefined ? `${head}}` : `${head},"result":${text}}`;
  // The record is the result's text and a few ASCII fields around it.
  const bytes = resultBytes + recordText.length - (text?.length ?? 0);
  return { kind: "completed", name: p.name, stored: record, record: recordText, bytes, resolve: p.resolve };
}

/**
 * JSON.stringify of a completed record's fields before its result, without its closing brace. Built as a
 * template (bench/workflow-step-cpu.ts: record; test/unit/workflow-record-text.test.ts: the same text): a
 * finite number's text is the same in both; any other falls back to JSON.stringify.
 */
export function completedHead(seq: number, attempts: number, startedAt: number, endedAt: number): string {
  if (Number.isFinite(seq) && Number.isFinite(attempts) && Number.isFinite(startedAt) && Number.isFinite(endedAt))
    return `{"status":"completed","seq":${seq},"attempts":${attempts},"startedAt":${startedAt},"endedAt":${endedAt}`;
  return JSON.stringify({ status: "completed", seq, attempts, startedAt, endedAt }).slice(0, -1);
}

/**
 * True when JSON.parse(JSON.stringify(value)) is `value` itself: a string, a boolean, null, or a finite number
 * other than -0 (a step's result of one of these is handed on without parsing its text back).
 */
export function sameOnceParsed(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0);
    default:
      return value === null;
  }
}

/** True for a record runStep wrote for a completed step (it writes `status` first), without parsing its result. */
export function isCompletedRecord(text: string): boolean {
  return text.startsWith('{"status":"completed"');
}

function backoffMs(definition: WorkflowDefinition<never, unknown>, count: number, error: unknown): number {
  try {
    const ms = definition.backoff ? definition.backoff(count, error) : defaultBackoff(count) * 1000;
    if (typeof ms === "number" && Number.isFinite(ms) && ms >= 0) return ms;
  } catch {
    // A backoff that throws falls back to the default, as for jobs.
  }
  return defaultBackoff(count) * 1000;
}

/** A sleepUntil's ms run from `nowMs` (Redis' time): a due time already past parks it for 0 ms. */
function parkOf(p: PendingStep, nowMs: number): Commit["parks"][number] {
  if (p.kind === "sleep") {
    const ms = p.untilMs === undefined ? p.ms : Math.max(0, Math.ceil(p.untilMs - nowMs));
    return { step: p.name, kind: "s", seq: p.seq, ms: String(ms), event: "", match: "" };
  }
  if (p.kind === "wait") {
    const ms = p.timeoutMs === undefined ? "" : String(p.timeoutMs);
    return { step: p.name, kind: "w", seq: p.seq, ms, event: p.event, match: p.match };
  }
  throw new Error("a run step is not parked");
}

function failureOf(error: unknown): WorkflowFailure {
  const { name, message } = describeError(error);
  return { name: isNonDeterministic(error) ? "TickqNonDeterministic" : name, message };
}

function runTooLarge(step: string, bytes: number): WorkflowFailure {
  return {
    name: "TickqError",
    message: `step "${step}"'s result would bring the run's stored step records to ${bytes} bytes; a run keeps at most 32 MiB (${MAX_RUN_BYTES} bytes): store large data elsewhere and return a reference`,
  };
}

function tooLarge(what: string, bytes: number): WorkflowFailure {
  return {
    name: "TickqError",
    message: `${what} is ${bytes} bytes of JSON; at most ${MAX_RESULT_BYTES} are kept: store large data elsewhere and return a reference`,
  };
}
