// The `step` object of one execution. A step the run completed answers its
// stored result at once; any other step joins `pending` and its promise waits
// until the execution runs and commits it (execute.ts). Each step takes the
// next position in the run's call order: a completed step met at another
// position, or a new step at a completed one's position, means the deployed
// code no longer matches the run's history, and the execution stops with
// TickqNonDeterministic instead of doing something wrong. New steps after
// the last completed one are fine. A completed step whose result the claim
// left in Redis answers once it is read (left-results.ts).
import { TickqError } from "../errors.js";
import { dueTimeMs, durationMs } from "../duration.js";
import { nonDeterministic } from "./errors.js";
import type { StepRecord } from "./records.js";
import type { Invoker } from "./invoke.js";
import type { LeftResults } from "./left-results.js";
import type { InvokeWorkflowOptions, StepContext, StepOptions, WaitForEventOptions, WorkflowStep } from "./types.js";

/** Steps one run may have. */
export const MAX_STEPS = 1_000;
const MAX_NAME = 256;

export type PendingStep =
  | {
      kind: "run";
      name: string;
      seq: number;
      fn: (ctx: StepContext) => unknown;
      retry: number | undefined;
      resolve: (value: unknown) => void;
    }
  // untilMs: step.sleepUntil's due time (epoch ms, Redis' clock); the park's ms are counted from it when it commits.
  | { kind: "sleep"; name: string; seq: number; ms: number; untilMs?: number }
  | { kind: "wait"; name: string; seq: number; event: string; match: string; timeoutMs: number | undefined };

export interface Replay {
  step: WorkflowStep;
  /** Steps met and not completed, in call order, since the last take. */
  pending: PendingStep[];
  /** Set when the code broke the rules: the execution fails the run with it. */
  fatal(): Error | undefined;
  /** The step the rules broke at: a stored step the code no longer reaches where it completed, else the step entered last. */
  fatalStep(): string | undefined;
  /**
   * Set when a result left in Redis could not be read: `lost` once the run is no longer this
   * execution's, else the read's error. The step waiting on it never answers; the execution stops.
   */
  halted(): { lost: true } | { lost: false; error: unknown } | undefined;
  /** While results left in Redis are being read: settles once they are (never rejects). */
  reading(): Promise<unknown> | undefined;
  /** A step of this execution completed: later replays read it from here. */
  completed(name: string, record: StepRecord): void;
  /** Completed steps the code never reached (call when the function returned). */
  unreached(): string[];
  /** The position the code reached step `name` at, or undefined when it has not reached it. */
  positionOf(name: string): number | undefined;
}

// Never settles: the function stops at a step that broke the rules while the execution fails the run.
const never = new Promise<never>(() => {});

/** Runs a child workflow for step.invokeWorkflow (children.ts), bound to the run. */
export type RunChild = (
  workflowName: string,
  input: unknown,
  ctx: StepContext,
  id: string | undefined,
) => Promise<unknown>;

export function replay(
  records: Map<string, StepRecord>,
  invoke: Invoker,
  left?: LeftResults,
  runChild?: RunChild,
): Replay {
  const bySeq = new Map<number, string>();
  for (const [name, record] of records) if (record.status === "completed") bySeq.set(record.seq, name);
  const st: ReplayState = { records, bySeq, met: new Map(), calls: 0, left, pending: [] };
  return new ReplayOf(st, stepOf(st, invoke, runChild));
}

/** A Replay over its state: a class, so an execution makes one object for it and no function. */
class ReplayOf implements Replay {
  readonly pending: PendingStep[];

  constructor(
    private readonly st: ReplayState,
    readonly step: WorkflowStep,
  ) {
    this.pending = st.pending;
  }

  fatal() {
    return this.st.fatal;
  }

  fatalStep() {
    const { st } = this;
    return st.fatal ? (st.diverged ?? st.entered) : undefined;
  }

  halted() {
    return this.st.halted;
  }

  reading() {
    return this.st.left?.reading();
  }

  completed(name: string, record: StepRecord) {
    this.st.records.set(name, record);
    this.st.bySeq.set(record.seq, name);
  }

  unreached() {
    const { st } = this;
    return [...st.bySeq.values()].filter((name) => !st.met.has(name));
  }

  positionOf(name: string) {
    return this.st.met.get(name);
  }
}

/** One execution's replay: the run's records, the steps the code met, and what broke the rules. */
interface ReplayState {
  readonly records: Map<string, StepRecord>;
  /** Completed steps by position. */
  readonly bySeq: Map<number, string>;
  /** Steps the code met, by name: their position. */
  readonly met: Map<string, number>;
  calls: number;
  fatal?: Error;
  entered?: string;
  diverged?: string;
  halted?: ReturnType<Replay["halted"]>;
  readonly left: LeftResults | undefined;
  readonly pending: PendingStep[];
}

/** The step's position, or undefined once the rules are broken. */
function enterStep(st: ReplayState, name: unknown): number | undefined {
  if (st.fatal) return undefined;
  if (typeof name !== "string" || name === "" || name.length > MAX_NAME) {
    st.fatal = new TickqError("BAD_ARGS", `a step name must be a non-empty string of at most ${MAX_NAME} characters`);
    return undefined;
  }
  const seq = st.calls++;
  st.entered = name;
  if (st.met.has(name)) {
    st.fatal = new TickqError("BAD_ARGS", `step name "${name}" is used twice in one run: each step needs its own name`);
    return undefined;
  }
  st.met.set(name, seq);
  if (seq >= MAX_STEPS) {
    st.fatal = new TickqError("WORKFLOW_FAILED", `a run has at most ${MAX_STEPS} steps; step "${name}" is one more`);
    return undefined;
  }
  const record = st.records.get(name);
  if (record?.status === "completed" && record.seq !== seq) {
    st.diverged = st.bySeq.get(seq) ?? name;
    st.fatal = nonDeterministic(
      `step "${name}" completed as step ${record.seq + 1} of this run, but the code now reaches it as step ${seq + 1}: steps were added, removed or reordered before it`,
    );
    return undefined;
  }
  const there = st.bySeq.get(seq);
  if (record?.status !== "completed" && there !== undefined) {
    st.diverged = there;
    st.fatal = nonDeterministic(
      `step ${seq + 1} of this run completed as "${there}", but the code now runs step "${name}" there: a completed step was renamed, removed or reordered`,
    );
    return undefined;
  }
  return seq;
}

/** The step's record, if the run completed it. */
function completedRecord(st: ReplayState, name: string): StepRecord | undefined {
  const record = st.records.get(name);
  return record?.status === "completed" ? record : undefined;
}

/** A completed step's result: at once, or once read when the claim left it in Redis. */
function resultOf(st: ReplayState, name: string, record: StepRecord): Promise<unknown> {
  const { left } = st;
  if (!left?.has(name)) return Promise.resolve(record.result);
  return left.load(name).then(
    (full) => {
      if (full === undefined) {
        st.halted ??= { lost: true };
        return never;
      }
      return full.result;
    },
    (error: unknown) => {
      st.halted ??= { lost: false, error };
      return never;
    },
  );
}

/** The `step` object of an execution over its replay state. */
function stepOf(st: ReplayState, invoke: Invoker, runChild: RunChild | undefined): WorkflowStep {
  const { pending } = st;
  const step: WorkflowStep = {
    run(name, fn, options?: StepOptions) {
      const seq = enterStep(st, name);
      if (seq === undefined) return never;
      const record = completedRecord(st, name);
      if (record) return resultOf(st, name, record) as never;
      if (typeof fn !== "function") {
        st.fatal = new TickqError("BAD_ARGS", `step.run("${name}", fn): fn must be a function`);
        return never;
      }
      const retry = options?.retry;
      if (retry !== undefined && !(Number.isInteger(retry) && retry >= 0)) {
        st.fatal = new TickqError("BAD_ARGS", `step "${name}": retry must be a whole number ≥ 0`);
        return never;
      }
      return new Promise((resolve) => {
        pending.push({ kind: "run", name, seq, fn, retry, resolve });
      }) as never;
    },
    invoke(name: string, jobName: string, args: unknown[], options?: StepOptions) {
      if (typeof jobName !== "string" || !Array.isArray(args)) {
        if (enterStep(st, name) !== undefined)
          st.fatal = new TickqError("BAD_ARGS", `step.invoke("${name}"): a job name and an args array`);
        return never;
      }
      return step.run(name, (ctx) => invoke(jobName, args, ctx), options) as never;
    },
    invokeWorkflow(name: string, workflowName: string, input: unknown, options?: InvokeWorkflowOptions) {
      if (
        typeof workflowName !== "string" ||
        (options?.id !== undefined && typeof options.id !== "string") ||
        !runChild
      ) {
        if (enterStep(st, name) !== undefined)
          st.fatal = new TickqError(
            "BAD_ARGS",
            `step.invokeWorkflow("${name}"): a workflow name, its input and { id?: string }`,
          );
        return never;
      }
      const { id, ...stepOptions } = options ?? {};
      return step.run(name, (ctx) => runChild(workflowName, input, ctx, id), stepOptions) as never;
    },
    sleep(name, duration) {
      const seq = enterStep(st, name);
      if (seq === undefined) return never;
      if (completedRecord(st, name)) return Promise.resolve();
      try {
        pending.push({ kind: "sleep", name, seq, ms: durationMs(duration, `step.sleep("${name}")`) });
      } catch (error) {
        st.fatal = error as Error;
      }
      return never;
    },
    sleepUntil(name, until) {
      const seq = enterStep(st, name);
      if (seq === undefined) return never;
      if (completedRecord(st, name)) return Promise.resolve();
      try {
        pending.push({ kind: "sleep", name, seq, ms: 0, untilMs: dueTimeMs(until, `step.sleepUntil("${name}")`) });
      } catch (error) {
        st.fatal = error as Error;
      }
      return never;
    },
    waitForEvent<T>(name: string, options: WaitForEventOptions) {
      const seq = enterStep(st, name);
      if (seq === undefined) return never;
      const record = completedRecord(st, name);
      if (record) return resultOf(st, name, record).then((result) => (result ?? null) as T | null);
      try {
        const { event, match = "", timeout } = options ?? ({} as WaitForEventOptions);
        if (typeof event !== "string" || event === "" || typeof match !== "string") {
          throw new TickqError(
            "BAD_ARGS",
            `step.waitForEvent("${name}"): event must be a non-empty string, match a string`,
          );
        }
        const timeoutMs =
          timeout === undefined ? undefined : durationMs(timeout, `step.waitForEvent("${name}") timeout`);
        pending.push({ kind: "wait", name, seq, event, match, timeoutMs });
      } catch (error) {
        st.fatal = error as Error;
      }
      return never;
    },
  };
  return step;
}
