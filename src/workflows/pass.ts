// The workflow pass of a tick, beside its job pipeline: claim due runs,
// execute them (execute.ts), commit what they did. Every exchange with Redis
// is one workflow_tick call that carries the commits queued since the last
// one (from every run that advanced meanwhile) and claims runs for the room
// left, so many runs advancing together share round trips. The first claim
// rides on the tick's begin (begin.lua), so a tick with no run due makes no
// workflow call; and once the tick's jobs are done and every execution left
// waits on the commit that ends it, those commits ride on the tick's finish
// (finish.lua), so a run alone pays no call for its end. Calls go one at
// a time, numbered in their own series (workflow_tick.lua keeps the last
// reply for a resend). A tick of an app with no workflow never runs it.
import { monotonicMs } from "../tick/clock.js";
import type { Fence } from "../tick/fence.js";
import type { TickCalls } from "../tick/numbered.js";
import { learnClock, redisNowMs } from "../tick/runtime.js";
import type { WorkflowsRuntime } from "./runtime.js";
import * as protocol from "../protocol/index.js";
import { orderedGuard, type OrderedGuard } from "../ordered/guard.js";
import {
  executeRun,
  isCompletedRecord,
  type ClaimedRun,
  type Commit,
  type ExecutionEnd,
  type ExecutionEnv,
  type StepSlots,
} from "./execute.js";
import { workflowCancelKey } from "../cancel/errors.js";
import { workflowEvents, type WorkflowEvents } from "./events.js";
import { invoker } from "./invoke.js";
import { childInvoker } from "./children.js";
import { childRuns } from "./client.js";
import { readClaimedSteps } from "./records.js";
import { workflowDefinition } from "./registry.js";
import type { WorkflowDefinition } from "./types.js";
import { currentVersion, definitionAt, storedVersion } from "./versions.js";
import { CALL_RUNS, CLAIM_RUNS, callShare } from "./call-room.js";

/** How long a run whose code this deployment lacks waits before a tick claims it again. */
const UNRUNNABLE_RETRY_MS = 60_000;

const nextTurn: () => Promise<void> =
  typeof setImmediate === "function"
    ? () => new Promise((resolve) => setImmediate(resolve))
    : () => new Promise((resolve) => setTimeout(resolve, 0));

/** Runs a tick's warning of refused commits names (it counts them all). */
const LOST_RUNS_NAMED = 5;

/** How often a pass whose steps run long asks Redis for cancellations (and claims due runs). */
const POLL_MS = 1_000;

export interface WorkflowPassInput {
  tickId: string;
  calls: TickCalls;
  fence: Fence;
  /** The tick's signal: aborts at its deadline or when its lease is lost. */
  signal: AbortSignal;
  leaseMs: number;
  /** How long a step may go on after its signal aborted before its execution is abandoned. */
  graceMs: number;
  /** Step functions run at once across the pass's executions. */
  concurrency: number;
  /** Runs held at once (each mostly waits for its commits); default `concurrency`, never below it. */
  runs?: number;
  /** What begin claimed for the pass (begin.lua's workflows part); absent: the pass claims in its first call. */
  first?: { claimed: readonly ClaimedReply[]; more: boolean };
  /** Monotonic ms after which no step starts (the run yields). */
  stopAt: number;
  /** True once the tick's job pipeline has ended: the executions' last commits may then wait for the tick's finish. */
  pipelineDone?: () => boolean;
  /** Told of every commit Redis applied (startAndWait learns its run's output). */
  committed?: (commit: Commit) => void;
}

export interface WorkflowPassReport {
  /** Executions, by how they ended. */
  ends: Partial<Record<ExecutionEnd | "cancelled", number>>;
  /** Step functions run. */
  steps: number;
  /** Completed steps' results Redis applied. */
  committed: number;
  /** Runs are still due, or some yielded: a later tick has workflow work. */
  more: boolean;
  /** False when a call found the lease gone. */
  held: boolean;
  /** Runs whose execution ended with a commit Redis did not store (ends.lost), the first few by id, for the tick's warning. */
  lostRuns: string[];
  /** Commits that end executions, for the tick's finish to carry (finish.lua): each execution left waits on one. */
  atFinish: Commit[];
  /**
   * Answers the commits finish carried (its `committed`; undefined when finish refused them or was not
   * sent), then waits for their executions to end and for the events they fire. Once only; then a no-op.
   */
  settle(committed: readonly number[] | undefined): Promise<void>;
}

type ClaimedReply = {
  id: string;
  name: string;
  input: string;
  fence: string;
  steps: string[];
  keyForm: string;
  version: string;
};

interface Queued {
  commit: Commit;
  resolve(applied: boolean): void;
  /** A round's commit ('c'): its completed steps are counted as its call answers (answered), no promise chained. */
  round?: WorkflowPassReport;
}

/** Answers a queued commit: Redis applied it or not. */
function answered(q: Queued, applied: boolean): void {
  if (applied && q.round) q.round.committed += completedSteps(q.commit);
  q.resolve(applied);
}

function completedSteps(commit: Commit): number {
  let n = 0;
  for (const s of commit.steps) if (isCompletedRecord(s.record)) n++;
  return n;
}

export async function runWorkflowPass(
  runtime: WorkflowsRuntime,
  input: WorkflowPassInput,
): Promise<WorkflowPassReport> {
  const { tickId, calls, fence, signal, leaseMs, concurrency, stopAt } = input;
  const held = Math.max(concurrency, input.runs ?? concurrency);
  const report = newPassReport();
  const queued: Queued[] = [];
  const executions = new Set<Promise<void>>();
  let seq = 0;
  const change = changeWaiter();
  const wake = () => change.wake();
  const stopping = () => signal.aborted || !report.held || monotonicMs() >= stopAt || !fence.valid();
  const guard = orderedGuard(fence, signal, leaseMs);
  const invoke = invoker(runtime);
  const invokeWorkflow = childInvoker(runtime, childRuns);
  const events = workflowEvents(runtime);

  // Per held run, its cancel key (src/cancel/errors.ts): the process's cancel watch aborts its signal when the
  // tick hears of the cancel, from an extend or step (the marks of workflow_cancel.lua) or from a workflow call.
  const marks = new Map<string, string>();
  const slots = stepSlots(concurrency);
  const shared: EnvParts = {
    runtime,
    input,
    queued,
    wake,
    events,
    report,
    guard,
    stopping,
    invoke,
    invokeWorkflow,
    slots,
  };

  const start = starter(shared, marks, executions);

  let due = true;
  const claimed = (reply: { claimed: readonly ClaimedReply[]; more: boolean }, claim = 0) => {
    if (claim >= 0) due = reply.more;
    for (const c of reply.claimed) start(claimedRun(c));
  };
  const exchange = async () => {
    const batch = queued.splice(0, callShare(queued));
    // A commit other than 'c' ends its execution: its slot is claimed for in the same call. With every
    // slot taken (or the call's room) the call claims nothing and reads nothing of the due runs (-1): `due`
    // stays as it was.
    const ending = batch.reduce((n, q) => (q.commit.disposition === "c" ? n : n + 1), 0);
    const free = held - executions.size + ending;
    const room = Math.min(free, CALL_RUNS - batch.length, CLAIM_RUNS);
    const claim = stopping() ? 0 : room > 0 ? room : -1;
    try {
      const reply = await calls.send(protocol.workflow_tick, {
        tickId,
        call: ++seq,
        claim,
        retentionMs: runtime.workflowRetentionMs,
        commits: batch.map((q) => q.commit),
      });
      learnClock(runtime, reply.nowMs);
      if (!reply.leaseHeld) report.held = false;
      // Heard before any commit is answered, so no execution goes on to a step of a cancelled run; the
      // tick's next extend says it heard (workflow_cancel's caller waits for that).
      const heard = reply.cancelled.flatMap((id) => marks.get(id) ?? []);
      if (runtime.cancels.learn(tickId, heard)) void fence.confirm();
      for (let i = 0; i < batch.length; i++) answered(batch[i]!, reply.committed[i] === 1);
      claimed(reply, claim);
    } catch (error) {
      // Not committed: each run goes back once the tick's lease is gone, and replays its uncommitted steps.
      for (const q of batch) answered(q, false);
      report.held = false;
      runtime.logger.warn(`tickq: workflow call failed: ${String(error)}`);
    }
  };

  const forFinish = () =>
    callShare(queued) === queued.length &&
    input.pipelineDone?.() === true &&
    (!due || stopping()) &&
    ridesOnFinish(queued, executions.size, () => stopping(), stopAt);
  let left: Queued[] = [];

  try {
    if (input.first) claimed(input.first);
    else await exchange();
    for (;;) {
      if (queued.length > 0) {
        // One turn of the event loop first, so executions whose steps end together share the call; none
        // when every execution already waits on its commit (a lone run): nothing else could join it.
        if (queued.length < executions.size) await nextTurn();
        if (forFinish()) {
          left = queued.splice(0);
          break;
        }
        await exchange();
      } else if (executions.size === 0) {
        if (!due || stopping()) break;
        await exchange();
      } else if (!(await change.within(POLL_MS))) {
        // Steps running long, nothing to commit: ask Redis anyway, for cancellations and due runs.
        await exchange();
      }
    }
  } finally {
    guard.stop();
    if (left.length === 0) await events.flush();
  }
  report.more ||= due || left.some((q) => q.commit.disposition === "y");
  report.atFinish = left.map((q) => q.commit);
  report.settle = settlerOf(left, executions, events);
  return report;
}

/** Starts a claimed run's execution, kept in `executions` (and its cancel key in `marks`) until it ends. */
function starter(
  shared: EnvParts,
  marks: Map<string, string>,
  executions: Set<Promise<void>>,
): (run: ClaimedRun) => void {
  const { runtime, wake, report } = shared;
  return (run) => {
    const declared = workflowDefinition(runtime.workflows, run.name);
    const definition = declared && definitionAt(declared, run.version);
    const mark = workflowCancelKey(run.fence, run.id);
    marks.set(run.id, mark);
    // Its cancel alone aborts it (the round's signal joins the guard's: RunEnv.roundSignal).
    const cancelled = runtime.cancels.cancelSignal(mark);
    const env = new RunEnv(shared, run, cancelled);
    const execution = executeClaimed(runtime, run, declared, definition, env, report, cancelled)
      .catch((error: unknown) => runtime.logger.error(`tickq: workflow run ${run.id}: ${String(error)}`))
      .finally(() => {
        // The same call that ended this execution may have claimed the run again: keep the new one's key.
        if (marks.get(run.id) === mark) marks.delete(run.id);
        runtime.cancels.ended(mark);
        runtime.cancels.forget(mark);
        executions.delete(execution);
        wake();
      });
    executions.add(execution);
  };
}

function newPassReport(): WorkflowPassReport {
  return {
    ends: {},
    steps: 0,
    committed: 0,
    more: false,
    held: true,
    lostRuns: [],
    atFinish: [],
    settle: () => Promise.resolve(),
  };
}

/** A claimed run as workflow_tick.lua (or begin.lua) replies it, read. */
function claimedRun(c: ClaimedReply): ClaimedRun {
  const { id, name, input, fence, keyForm } = c;
  const { records, left, sizes } = readClaimedSteps(c.steps);
  const version = storedVersion(c.version);
  return { id, name, input, fence: Number(fence), steps: records, left, sizes, keyForm, version };
}

/** A wait that a commit queued or an execution ended cuts short. */
function changeWaiter(): { wake(): void; within(ms: number): Promise<boolean> } {
  let wake: () => void = () => {};
  return {
    wake: () => wake(),
    /** True when a commit was queued or an execution ended within `ms`. */
    within: (ms) =>
      new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
      }),
  };
}

/** What every execution's env shares with the pass. */
interface EnvParts {
  runtime: WorkflowsRuntime;
  input: WorkflowPassInput;
  queued: Queued[];
  wake(): void;
  events: WorkflowEvents;
  report: WorkflowPassReport;
  guard: OrderedGuard;
  stopping(): boolean;
  invoke: ExecutionEnv["invoke"];
  invokeWorkflow: ExecutionEnv["invokeWorkflow"];
  slots: StepSlots;
}

/** `n` step slots shared by a pass's executions: a step's fn waits for one when all are taken. */
function stepSlots(n: number): StepSlots {
  let free = n;
  const waiting: (() => void)[] = [];
  return {
    take: () => {
      if (free > 0) {
        free--;
        return undefined;
      }
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    give: () => {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}

/**
 * A run's env: its commits queue for the pass's next call; `cancelled` aborts once the tick hears of its cancel.
 * A class, so a run makes one object and no function (bench/workflow-instructions.ts counts the step).
 */
class RunEnv implements ExecutionEnv {
  readonly graceMs: number;
  readonly invoke: ExecutionEnv["invoke"];
  readonly invokeWorkflow: ExecutionEnv["invokeWorkflow"];
  readonly slots: StepSlots;
  // The round's signal: the guard's (one for every execution until a lease in doubt replaces it) or the
  // run's cancel. Made once per guard signal, not per round: AbortSignal.any holds weak references
  // that cost the collector more than the steps of a no-op run.
  private base: AbortSignal | undefined;
  private combined: AbortSignal;

  constructor(
    private readonly pass: EnvParts,
    private readonly run: ClaimedRun,
    private readonly cancelled: AbortSignal,
  ) {
    this.graceMs = pass.input.graceMs;
    this.invoke = pass.invoke;
    this.invokeWorkflow = pass.invokeWorkflow;
    this.slots = pass.slots;
    this.combined = cancelled;
  }

  commit(commit: Commit): Promise<boolean> {
    const { pass } = this;
    if (commit.disposition === "c") {
      // A round's steps (no end, no event to fire): counted as its call answers, one promise a commit.
      return new Promise<boolean>((resolve) => {
        pass.queued.push({ commit, resolve, round: pass.report });
        pass.wake();
      });
    }
    return new Promise<boolean>((resolve) => {
      pass.queued.push({ commit, resolve });
      pass.wake();
    }).then((applied) => {
      if (applied) {
        pass.input.committed?.(commit);
        pass.events.committed(this.run.name, commit);
        pass.report.committed += completedSteps(commit);
      }
      return applied;
    });
  }

  roundSignal(): AbortSignal {
    const current = this.pass.guard.signal();
    if (current !== this.base) {
      this.base = current;
      this.combined = AbortSignal.any([current, this.cancelled]);
    }
    return this.combined;
  }

  roundDone(): void {
    this.pass.guard.done();
  }

  /** Read before every round of steps: once the tick heard of the cancel, no step of the run starts. */
  stopping(): boolean {
    return this.pass.stopping() || this.cancelled.aborted;
  }

  nowMs(): number {
    return redisNowMs(this.pass.runtime);
  }

  warn(message: string): void {
    this.pass.runtime.logger.warn(`${message} (run ${this.run.id})`);
  }

  async readRecords(names: string[]): Promise<string[] | undefined> {
    const { calls, tickId } = this.pass.input;
    const { id, fence } = this.run;
    const reply = await calls.send(protocol.workflow_steps, { tickId, id, fence: String(fence), names });
    return reply.held ? reply.records : undefined;
  }
}

/** Executes a claimed run (or parks one whose code this deployment lacks) and counts how it ended. */
async function executeClaimed(
  runtime: WorkflowsRuntime,
  run: ClaimedRun,
  declared: WorkflowDefinition<never, unknown> | undefined,
  definition: WorkflowDefinition<never, unknown> | undefined,
  env: ExecutionEnv,
  report: WorkflowPassReport,
  cancelled: AbortSignal,
): Promise<void> {
  if (!definition) {
    // A workflow or version this deployment does not declare (an older or newer one): parked, not failed,
    // until a deployment that has it claims it; stats() warns meanwhile.
    await env.commit({
      id: run.id,
      fence: String(run.fence),
      disposition: "v",
      extra: String(UNRUNNABLE_RETRY_MS),
      steps: [],
      parks: [],
    });
    runtime.logger.warn(
      `tickq: workflow run ${run.id}: ${lackedCode(declared, run)}; it waits for a deployment that does`,
    );
    return;
  }
  const { end: ended, steps } = await executeRun(run, definition, env);
  const end = cancelled.aborted ? "cancelled" : ended;
  report.ends[end] = (report.ends[end] ?? 0) + 1;
  report.steps += steps;
  if (end === "yielded") report.more = true;
  if (end === "lost" && report.lostRuns.length < LOST_RUNS_NAMED) report.lostRuns.push(run.id);
  if (end === "abandoned") {
    runtime.logger.warn(
      `tickq: workflow run ${run.id}: a step ignored its aborted signal past graceMs; the run goes to another tick once this tick's lease expires`,
    );
  }
}

/**
 * The executions left each wait on the commit that ends them (and no claim is wanted): those commits
 * can ride on the tick's finish instead of a call of their own. A park or retry whose run could be due
 * again before the tick stops goes in a call that can claim it again.
 */
function ridesOnFinish(queued: Queued[], running: number, stopping: () => boolean, stopAt: number): boolean {
  const endsForTheTick = (commit: Commit) => {
    if (commit.disposition === "c") return false;
    if (commit.disposition !== "p" && commit.disposition !== "r" && commit.disposition !== "v") return true;
    return stopping() || soonestWakeMs(commit) > stopAt - monotonicMs();
  };
  return queued.length === running && queued.every((q) => endsForTheTick(q.commit));
}

/** The report's `settle`: answers the commits finish carried, then waits for their executions and events; once only. */
function settlerOf(
  left: Queued[],
  executions: Set<Promise<void>>,
  events: WorkflowEvents,
): WorkflowPassReport["settle"] {
  let settled = left.length === 0;
  return async (committed) => {
    if (settled) return;
    settled = true;
    for (const [i, q] of left.entries()) answered(q, committed?.[i] === 1);
    await Promise.all([...executions]);
    await events.flush();
  };
}

/** What this deployment lacks to run `run`: its workflow, or its version. */
function lackedCode(declared: WorkflowDefinition<never, unknown> | undefined, run: ClaimedRun): string {
  if (!declared) return `this deployment does not declare workflow "${run.name}"`;
  return `it runs on version ${run.version} of workflow "${run.name}", which this deployment does not declare (it has version ${currentVersion(declared)}; keep older code under \`versions\`)`;
}

/** Ms until a parked or retrying run is due again; Infinity when only an event can wake it. */
function soonestWakeMs(commit: Commit): number {
  if (commit.disposition === "r" || commit.disposition === "v") return Number(commit.extra);
  return Math.min(...commit.parks.map((p) => (p.ms === "" ? Number.POSITIVE_INFINITY : Number(p.ms))));
}
