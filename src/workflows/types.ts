// Durable workflows: functions of steps that survive ticks, deploys and
// faults. The terms:
//
// workflow   a name declared in createTickq({ workflows }), with run(input, step)
// run        one start of a workflow with an input, by id; it ends completed,
//            failed or cancelled, and meanwhile is running, sleeping or waiting
// execution  one call of run(input, step) by a tick, from the top: completed
//            steps answer their stored result, the next ones run
// step       a named unit whose result is committed once: step.run, step.sleep,
//            step.sleepUntil, step.waitForEvent
// fence      grows with every execution of any run: a store that keeps the
//            largest fence it saw can refuse a stale execution's write

import type { Duration } from "../duration.js";
import type { ArgsOf } from "../job/definition.js";

export type { Duration };

/** What a step's function gets. */
export interface StepContext {
  /** Aborts at the tick's deadline, when the run is cancelled, and when its tick may lose the run to another. */
  signal: AbortSignal;
  /** 1 on the step's first try, 2 after one failure, and so on. */
  attempt: number;
  /** This execution's fence: it grows with every execution. */
  fence: number;
  /**
   * `LENGTH:runId:step:name` (LENGTH: the run id's JavaScript `length`): the same on every try of this step,
   * and never the same for two (run, step) pairs, to make a downstream write idempotent. A run started
   * by an earlier version keeps `runId:step:name`.
   */
  idempotencyKey: string;
}

/** A step's options. */
export interface StepOptions {
  /** Retries of this step after its first failure; default the workflow's `retry`. */
  retry?: number;
}

/** `step.invokeWorkflow`'s options. */
export interface InvokeWorkflowOptions extends StepOptions {
  /** The first try's child run id; default one drawn from this run, the step and the try. */
  id?: string;
}

/** What `step.waitForEvent` waits for. */
export interface WaitForEventOptions {
  /** The event's name, as `tq.workflows.sendEvent(event, …)` sends it. */
  event: string;
  /** Only an event sent with this `match` resolves the wait; default "". */
  match?: string;
  /** After this long the wait resolves with null; default never. */
  timeout?: Duration;
}

/** The JSON form a step's result is stored in and answered from. */
export type Stored<T> = T extends undefined | ((...args: never[]) => unknown)
  ? undefined
  : T extends {
        /** A value with toJSON is stored as what it returns. */
        toJSON(): infer J;
      }
    ? J
    : T extends object
      ? { [K in keyof T]: Stored<T[K]> }
      : T;

/**
 * The app's jobs and workflows, for typed `step.invoke` and `step.invokeWorkflow`: empty until the app
 * augments it (docs/guides/workflows.md, "Typed invokes"):
 *
 * ```ts
 * declare module "tickq" {
 *   interface Register { jobs: typeof jobs; workflows: typeof workflows }
 * }
 * ```
 *
 * Either member may be left out: that side stays untyped (any name, `unknown` args, input and output).
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the app's module augmentation.
export interface Register {}

/** What a {@link WorkflowStep} knows of the app: `{ jobs?: typeof jobs; workflows?: typeof workflows }`. */
export type StepTypes = object;

type JobsOf<R> = R extends { jobs: infer J } ? J : never;
type FlowsOf<R> = R extends { workflows: infer W } ? W : never;

/** The job names `step.invoke` takes: the registered jobs' names, else any string. */
export type InvokableJob<R = Register> = [JobsOf<R>] extends [never] ? string : keyof JobsOf<R> & string;
/** The args `step.invoke` takes for job `K`. */
export type InvokeArgs<R, K> = [JobsOf<R>] extends [never]
  ? unknown[]
  : K extends keyof JobsOf<R>
    ? ArgsOf<JobsOf<R>[K]>
    : never;
/** What `step.invoke` of job `K` resolves to: its handler's return value as stored (JSON). */
export type InvokeResult<R, K> = [JobsOf<R>] extends [never]
  ? unknown
  : K extends keyof JobsOf<R>
    ? Stored<Awaited<HandlerResult<JobsOf<R>[K]>>>
    : unknown;
type HandlerResult<H> = H extends { perform: (...args: never[]) => infer T }
  ? T
  : H extends (...args: never[]) => infer T
    ? T
    : unknown;

/** The workflow names `step.invokeWorkflow` takes: the registered workflows' names, else any string. */
export type InvokableWorkflow<R = Register> = [FlowsOf<R>] extends [never] ? string : keyof FlowsOf<R> & string;
/** The input `step.invokeWorkflow` takes for workflow `K`: its `run`'s first parameter. */
export type ChildInput<R, K> = [FlowsOf<R>] extends [never]
  ? unknown
  : K extends keyof FlowsOf<R>
    ? FlowsOf<R>[K] extends {
        /** The child's code. */
        run: (input: infer I, ...rest: never[]) => unknown;
      }
      ? I
      : unknown
    : never;
/** What `step.invokeWorkflow` of workflow `K` resolves to: its output as stored (JSON). */
export type ChildOutput<R, K> = [FlowsOf<R>] extends [never]
  ? unknown
  : K extends keyof FlowsOf<R>
    ? FlowsOf<R>[K] extends {
        /** The child's code. */
        run: (...args: never[]) => infer O;
      }
      ? Stored<Awaited<O>>
      : unknown
    : unknown;

/**
 * The second argument of a workflow's `run`: its steps. `R` types `invoke` and `invokeWorkflow` (default:
 * the app's {@link Register}; untyped when the app registers nothing).
 */
export interface WorkflowStep<R extends StepTypes = Register> {
  /**
   * Runs `fn` once for this run and stores its result (JSON); a later execution answers the stored result.
   * A throw is retried with backoff; once the retries are spent the run fails.
   */
  run<T>(name: string, fn: (ctx: StepContext) => T | Promise<T>, options?: StepOptions): Promise<Stored<Awaited<T>>>;
  /**
   * Runs the job `jobName` with `args` as a step: its return value is the step's result; when it ends
   * failed or dead the step fails (and is retried with a new job, by the step's retry rules).
   * The execution waits for the job (it yields at the tick's budget and picks the result up later).
   * With the app's jobs registered ({@link Register}), the name and args are checked and the result typed.
   */
  // A, like I below, is inferred and never written: a call that names one type argument (`invoke<T>`) does not
  // fit this signature and takes the next one, with the result named.
  invoke<K extends InvokableJob<R>, A extends InvokeArgs<R, K>>(
    name: string,
    jobName: K,
    args: A,
    options?: StepOptions,
  ): Promise<InvokeResult<R, K>>;
  /** As above, the result named by you (`invoke<T>(…)`, as before the registry). */
  invoke<T, K extends InvokableJob<R> = InvokableJob<R>>(
    name: string,
    jobName: K,
    args: InvokeArgs<R, K>,
    options?: StepOptions,
  ): Promise<T>;
  /**
   * Starts a run of the workflow `workflowName` with `input` as a child of this run, and resolves to its output.
   * The child's failure or cancel fails the step; a retried step starts a new child
   * (its id drawn from this run, the step and the try; `id` names the first try's child, `ID:TRY` the next).
   * Cancelling this run cancels its children that have not ended. The execution waits for the child (it
   * yields at the tick's budget and picks the output up later). With the app's workflows registered
   * ({@link Register}), the name and input are checked and the output typed.
   */
  invokeWorkflow<K extends InvokableWorkflow<R>, I extends ChildInput<R, K>>(
    name: string,
    workflowName: K,
    input: I,
    options?: InvokeWorkflowOptions,
  ): Promise<ChildOutput<R, K>>;
  /** As above, the output named by you (`invokeWorkflow<T>(…)`, as before the registry). */
  invokeWorkflow<T, K extends InvokableWorkflow<R> = InvokableWorkflow<R>>(
    name: string,
    workflowName: K,
    input: ChildInput<R, K>,
    options?: InvokeWorkflowOptions,
  ): Promise<T>;
  /** Parks the run for `duration` (no tick is held meanwhile). */
  sleep(name: string, duration: Duration): Promise<void>;
  /**
   * Parks the run until `until` (Redis' clock): a Date, epoch ms, or an ISO 8601 string with its offset
   * ("2026-12-01T09:00:00Z"; a date alone is midnight UTC). A time already past resumes at the next tick.
   */
  sleepUntil(name: string, until: Date | number | string): Promise<void>;
  /** Parks the run until `tq.workflows.sendEvent(event, { match })`; resolves with the event's data, or null at the timeout. */
  waitForEvent<T = unknown>(name: string, options: WaitForEventOptions): Promise<T | null>;
}

/** A workflow's failure as `onFailure` and `tq.workflows.get` see it. */
export interface WorkflowFailure {
  /** The error's name: "Error", "TickqNonDeterministic", … */
  name: string;
  /** The error's message. */
  message: string;
  /** The step whose retries ran out, if a step failed. */
  step?: string;
}

/**
 * A workflow's code: replayed from the top by each execution of a run. Written as a method's type, so its
 * input is checked as `run`'s is (bivariantly): a definition of any input fits the registry.
 */
export type WorkflowCode<I = unknown, O = unknown> = {
  /** The code. */
  code(input: I, step: WorkflowStep): Promise<O>;
}["code"];

/** A workflow: its function, its step retries and backoff, and what to do when a run fails. */
export interface WorkflowDefinition<I = unknown, O = unknown> {
  /** The workflow's code, replayed from the top by each execution: do side effects only inside steps. */
  run(input: I, step: WorkflowStep): Promise<O>;
  /**
   * The version of `run` (a whole number ≥ 1); default 1. A run keeps the version it started on: bump it when
   * a change would not replay the runs in flight, and keep the old `run` under `versions` while they drain.
   */
  version?: number;
  /** Older versions' code by version number, for runs started on them (never the current `version`). */
  versions?: Record<number, WorkflowCode<I, unknown>>;
  /** Retries of a failing step; default 3. */
  retry?: number;
  /** Ms to wait before retry number `count` (0-based) of a step; default Sidekiq's backoff in ms. */
  backoff?: (count: number, error: unknown) => number;
  /**
   * Called once when a run fails, before it is marked failed, with the step whose retries ran out
   * (`failure.step`; undefined when the failure is not a step's); what it throws is logged. Left
   * unannotated inside `createTickq({ workflows })`, its input cannot be inferred: annotate it, or
   * write the definition with `defineWorkflow`.
   */
  onFailure?(input: I, failure: WorkflowFailure, step: string | undefined): unknown;
  /**
   * Starts a run of this workflow for each `tq.workflows.sendEvent(event, …)`, the event's data as its input.
   * `id(data)` names the run, so the same event data starts one run; default `NAME:EVENTID` when the event
   * is sent with an `id`, else a new id each time. Inside `createTickq({ workflows })` annotate `id`'s
   * parameter (as `onFailure`'s), or write the definition with `defineWorkflow`, `run` first.
   */
  trigger?: WorkflowTrigger<I>;
}

/** What starts runs of a workflow: an event, and the run id its data gives. */
export interface WorkflowTrigger<I = unknown> {
  /** The event's name, as `tq.workflows.sendEvent(event, …)` sends it. */
  event: string;
  /** The run's id for this event data (a run with that id already: no second run). */
  id?(data: I): string;
}

// `never` lets each definition declare its own input type.
/** Workflows as tickq holds them: name → {@link WorkflowDefinition}. */
export type WorkflowRegistry = Record<string, WorkflowDefinition<never, unknown>>;

/** Each workflow's input type, by name: what `createTickq` infers from the `workflows` option. */
export type WorkflowInputs = Record<string, unknown>;

/**
 * The `workflows` option: workflow name → {@link WorkflowDefinition}. Written over the inputs, so
 * TypeScript infers each input from `run`'s first parameter and types `step` for you.
 */
export type WorkflowsOption<W extends WorkflowInputs> = { [K in keyof W]: WorkflowDefinition<W[K], unknown> };

/** A run's state. */
export type WorkflowStatus = "running" | "sleeping" | "waiting" | "completed" | "failed" | "cancelled";

/** What `tq.workflows.cancel` answers: the run's status after it, or "cancelling" while its tick has not heard. */
export type WorkflowCancelStatus = WorkflowStatus | "cancelling";

/** One step of a run as `tq.workflows.get` shows it. */
export interface WorkflowStepInfo {
  /** The step's name. */
  name: string;
  /** completed; failed (a try failed, a retry is due); sleeping or waiting (parked). */
  status: "completed" | "failed" | "sleeping" | "waiting";
  /** Tries so far. */
  attempts: number;
  /** Epoch ms of its last try's start, when it ran code. */
  startedAt?: number;
  /** Epoch ms it completed (or last failed). */
  endedAt?: number;
  /** Its stored result, once completed. */
  result?: unknown;
  /** Its last error, while failed. */
  error?: {
    /** The error's name. */
    name: string;
    /** The error's message. */
    message: string;
    /** Its stack (at most 4,000 characters), when it had one. */
    stack?: string;
  };
  /** When a parked step ends by itself (epoch ms): a sleep's end, a wait's timeout. */
  wakeAt?: number;
  /** A waiting step's event. */
  event?: string;
  /** A waiting step's match ("" for any). */
  match?: string;
  /** A failed step's next try (epoch ms), while its run waits for it. */
  nextTryAt?: number;
}

/** A run as `tq.workflows.get` answers it. */
export interface WorkflowRun {
  /** The run's id. */
  id: string;
  /** The workflow's name. */
  name: string;
  /** The workflow version it runs on (1 for a run stored before versions). */
  version: number;
  /** Where it stands. */
  status: WorkflowStatus;
  /** Its input, as stored (JSON). */
  input: unknown;
  /** Its output, once completed. */
  output?: unknown;
  /** Why it failed, once failed. */
  error?: WorkflowFailure;
  /** When it was started (epoch ms, Redis' clock). */
  createdAt: number;
  /** When it last changed status, was taken up by a tick, or (the latest) step ended. */
  updatedAt: number;
  /** When it ended. */
  endedAt?: number;
  /** Its steps in the order they first ran. */
  steps: WorkflowStepInfo[];
}

/** One row of `tq.workflows.list`. */
export interface WorkflowRunSummary {
  /** The run's id. */
  id: string;
  /** The workflow's name. */
  name: string;
  /** Where it stands. */
  status: WorkflowStatus;
  /** When it was started (epoch ms, Redis' clock). */
  createdAt: number;
  /** When it last changed status or was taken up by a tick (a run's steps in between do not move it: `get` counts them). */
  updatedAt: number;
}

/** `tq.workflows.list`'s filter and page. */
export interface WorkflowListOptions {
  /** Only runs in this status; default every run. */
  status?: WorkflowStatus;
  /** Only runs of this workflow. */
  name?: string;
  /** From the previous page's `cursor`. */
  cursor?: string;
  /** Default 50, at most 500. */
  limit?: number;
}

/** A page of runs, newest first; `cursor` is absent on the last page. */
export interface WorkflowPage {
  /** The runs of this page. */
  runs: WorkflowRunSummary[];
  /** Pass it to `list` for the next page. */
  cursor?: string;
}

/** `tq.workflows.start`'s options. */
export interface WorkflowStartOptions {
  /** The run's id: the same id again answers the same run. Default a new one. */
  id?: string;
  /** Kicks a tick right after the start, as `enqueue` does; default the scope's (the app's `kick` option). */
  kick?: boolean;
}

/** One run of `tq.workflows.startBulk`: its workflow, its input and, optionally, its id (as `start`'s). */
export interface WorkflowStartItem<K extends string = string, I = unknown> {
  /** The workflow to start. */
  name: K;
  /** The run's input, as `start` takes it. */
  input: I;
  /** The run's id (idempotent, as `start`'s `id`); default a fresh one. */
  id?: string;
}

/** `tq.workflows.startBulk`'s options. */
export interface WorkflowStartBulkOptions {
  /** Kicks a tick right after the starts, as `enqueue` does; default the scope's (the app's `kick` option). */
  kick?: boolean;
}

/** `tq.workflows.sendEvent`'s options. */
export interface SendEventOptions {
  /** Only waits with this `match` take the event; default "". */
  match?: string;
  /** The event's data (JSON): what the wait resolves with; default null. */
  data?: unknown;
  /**
   * The event's id (a webhook's delivery id): the same event and id again within `eventRetentionMs` (or the
   * replay window, if longer) is a no-op that answers 0. Default none.
   */
  id?: string;
}

/** Options of `tq.workflows.startAndWait`. */
export interface WorkflowStartAndWaitOptions {
  /** The run's id, as `start`'s: the same id again answers the same run. Default a new one. */
  id?: string;
  /** How long to wait for the run's end, in ms; default 30,000. */
  timeoutMs?: number;
}

/** `tq.workflows.result`'s options. */
export interface WorkflowResultOptions {
  /** How long to wait, in ms; default 30,000. */
  timeoutMs?: number;
  /**
   * Runs ticks while waiting, so the run moves with no cron or kick (they run the app's jobs too);
   * default false: only reads the run.
   */
  drive?: boolean;
}

/** `tq.workflows.check`'s filter and page. */
export interface WorkflowCheckOptions {
  /** Only runs of this workflow; default every workflow. */
  name?: string;
  /** Live runs to check in this call; default 1,000, at most 10,000. */
  limit?: number;
  /** From the previous answer's `cursor`. */
  cursor?: string;
}

/** A live run the deployed code would not replay, in {@link WorkflowCheck}. */
export interface WorkflowIncompatibility {
  /** The run's id. */
  runId: string;
  /** Its workflow. */
  name: string;
  /** The workflow version it runs on. */
  version: number;
  /** The stored step the code no longer reaches where the run met it; absent when no step is to blame. */
  step?: string;
  /** Why, as the run's failure would say it. */
  reason: string;
}

/** What `tq.workflows.check` answers: runs checked, those the code would not replay, and a cursor while runs are left. */
export interface WorkflowCheck {
  /** Live runs replayed. */
  checked: number;
  /** The runs the deployed code would not replay. */
  incompatible: WorkflowIncompatibility[];
  /** Pass it to `check` for the next runs; absent once every live run was checked. */
  cursor?: string;
}

/** What `tq.workflows.retry` answers: the run and its status after the call. */
export interface WorkflowRetry {
  /** The run's id. */
  runId: string;
  /** "running" once resumed, else the status it had (a retry of an attempt already resumed). */
  status: WorkflowStatus;
}

/** `tq.workflows.fork`'s options. */
export interface WorkflowForkOptions {
  /** The step the new run starts at: the source's completed steps before it are copied as committed. */
  fromStep: string;
  /** The new run's id: the same id again answers the same run. Default a new one. */
  id?: string;
  /** The new run's input; default the source run's (as stored). */
  input?: unknown;
}

/** `tq.workflows.retryAll`'s filter. */
export interface WorkflowRetryAllOptions {
  /** The workflow whose runs to retry. */
  name: string;
  /** Which runs: the failed ones. */
  status: "failed";
}

/** `tq.workflows`: start runs, send events, read runs. */
export interface WorkflowsApi<W extends WorkflowInputs = WorkflowInputs> {
  /**
   * Starts a run; with `id`, the same id again answers the same run (a different workflow: CONFLICT). Returns the
   * run id. `kick: true` kicks a tick as `enqueue` does, so the run starts at once (default: the scope's kick).
   */
  start<K extends keyof W & string>(name: K, input: W[K], options?: WorkflowStartOptions): Promise<string>;
  /**
   * Starts many runs in one call to Redis (at most 1,000 runs and 4 MB of input): answers their run ids in
   * order. All or none: when one id is held by a run of another workflow (CONFLICT) or one item is bad
   * (BAD_ARGS), no run is started. An id that names a run of the same workflow answers that run, as `start`
   * does. On partitions, all or none holds within each partition (a call groups its runs by partition).
   */
  startBulk<K extends keyof W & string>(
    runs: readonly WorkflowStartItem<K, W[K]>[],
    options?: WorkflowStartBulkOptions,
  ): Promise<string[]>;
  /**
   * Sends `event` with this `match` (default "") and `data`: the waits parked on it take it now, and it is
   * kept for `eventRetentionMs` for waits that park later in runs started before it (each wait of a run
   * takes a different event, in the order sent). Returns how many waits it found parked; 0 when `id` was
   * sent before (within the retention): a resend is a no-op.
   */
  sendEvent(event: string, options?: SendEventOptions): Promise<number>;
  /**
   * Starts a run and runs it in a tick of this process, then answers its output (as `result` with `drive`):
   * the tick's first call starts the run and claims it, so a run alone costs one call fewer than `start`
   * and a tick, and its output comes from the tick that committed it (no read after). `id` as `start`'s
   * (CONFLICT when another workflow holds it); throws WorkflowFailedError when the run fails or is
   * cancelled, REDIS_FULL when Redis is full (no run started), a WORKFLOW_TIMEOUT TickqError past
   * `timeoutMs` (default 30 s; the run goes on). Its ticks run the app's other due work too.
   */
  startAndWait<K extends keyof W & string, T = unknown>(
    name: K,
    input: W[K],
    options?: WorkflowStartAndWaitOptions,
  ): Promise<T>;
  /** The run, or undefined. */
  get(runId: string): Promise<WorkflowRun | undefined>;
  /**
   * The run's output once it completed (JSON, as stored: `T` is yours to name); throws WorkflowFailedError
   * when it failed or was cancelled, a WORKFLOW_TIMEOUT TickqError past `timeoutMs` (default 30 s).
   * `drive: true` runs ticks while it waits (a script or a test with no cron), each at most 1 s.
   */
  result<T = unknown>(runId: string, options?: WorkflowResultOptions): Promise<T>;
  /** A page of runs, newest first. */
  list(options?: WorkflowListOptions): Promise<WorkflowPage>;
  /**
   * Cancels a run that has not ended. When a tick runs it, waits until that tick heard (within about
   * `cancelCheckMs` and a round trip): once it answers "cancelled", no step of the run starts, and a running
   * step's `ctx.signal` has aborted. Returns "cancelled", the status the run had already ended in, or
   * "cancelling" when its tick did not say it heard within 10 s (the run is cancelled; that tick starts no
   * step of it once its lease is gone). NOT_FOUND when there is no such run.
   */
  cancel(runId: string): Promise<WorkflowCancelStatus>;
  /**
   * Replays the committed steps of live runs (running, sleeping, waiting) against this deployment's code for
   * each run's version, before a deploy: no step function runs and nothing is written. Answers the runs that
   * would fail with TickqNonDeterministic (or whose version or workflow this code lacks); `cursor` while more
   * runs are left.
   */
  check(options?: WorkflowCheckOptions): Promise<WorkflowCheck>;
  /**
   * Resumes a failed or cancelled run at the step that ended it, with fresh tries; its completed steps are
   * kept (their functions do not run again). A second retry of the same ended attempt resumes nothing and
   * answers the run's current status. CONFLICT for a completed run, or one live without a retry; NOT_FOUND.
   */
  retry(runId: string): Promise<WorkflowRetry>;
  /**
   * Starts a new run of the same workflow and version whose steps before `fromStep` are copies of this run's
   * completed steps (they do not run again); answers its id, idempotent by `id`. BAD_ARGS when the run has
   * no step `fromStep`; NOT_FOUND when there is no such run.
   */
  fork(runId: string, options: WorkflowForkOptions): Promise<string>;
  /** Retries every failed run of workflow `name` (as `retry`); answers how many it resumed. */
  retryAll(options: WorkflowRetryAllOptions): Promise<{
    /** How many runs it resumed. */
    retried: number;
  }>;
}

/** What one tick did to workflow runs, in its report's `workflows` (absent when the app declares none). */
export interface TickWorkflowReport {
  /** Step results the tick's executions committed (completed steps). */
  steps: number;
  /** Runs that completed. */
  completed: number;
  /** Runs that failed. */
  failed: number;
  /** Runs parked by a sleep or a wait. */
  parked: number;
  /** Runs whose failing step waits for its next try. */
  retrying: number;
  /** Runs whose execution stopped at a cancel. */
  cancelled: number;
  /**
   * Runs whose step was still running `graceMs` after its signal aborted: the tick left the execution and
   * committed none of its round (a step that succeeded late runs again), and the run stays this tick's until
   * its lease expires, then another tick takes it. Not in the report's `abandoned`, which counts jobs.
   */
  abandoned: number;
  /**
   * Runs whose commit was not stored, so the steps it carried run again: the tick lost its lease (`leaseLost`,
   * which a Redis restart also causes), or Redis refused the commit because the run was no longer this
   * tick's with the fence of its claim (a restart or failover forgot the claim unseen: the tick warns).
   */
  lost: number;
}

/** Per workflow, in `tq.stats().workflows`: its runs by status. */
export type WorkflowStats = Record<WorkflowStatus, number>;

/** A workflow run ended: `workflow.completed` (with its output) or `workflow.failed` (with its error). */
export interface WorkflowEvent {
  /** The run's id. */
  runId: string;
  /** The workflow's name. */
  name: string;
  /** Its output (workflow.completed). */
  output?: unknown;
  /** Its failure (workflow.failed). */
  error?: WorkflowFailure;
}

// Workflows' tick report, beside the jobs' counts (tick/tick-report.ts).
declare module "../tick/tick-report.js" {
  interface TickReport {
    /** Workflow work: steps committed, runs completed, failed, parked (absent when the app declares no workflow). */
    workflows?: TickWorkflowReport;
  }
}

// Workflows' events, beside the jobs' (tick/events.ts declares those and the map).
declare module "../tick/events.js" {
  interface TickqEvents {
    /** A workflow run completed (its output committed). */
    "workflow.completed": WorkflowEvent;
    /** A workflow run failed (its failure committed). */
    "workflow.failed": WorkflowEvent;
  }
}
