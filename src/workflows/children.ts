// step.invokeWorkflow: a workflow run as a step of another, the child's
// output the step's result. The step notes the child under its parent
// (workflow_child.lua) and then starts it, idempotent by an id drawn from the
// parent's step key and try (or the caller's `id` for the first try), so a
// replay of the step finds the same child and a retried step starts a new
// one; then it polls the child until it ends or the step's signal aborts
// (the execution then yields and a later one polls again). A child that
// fails or is cancelled fails the step. Cancelling the parent cancels its
// live children (cancelChildren): noted before started, so the cancel finds
// every child that exists; a child started once the parent was cancelled
// (the cancel read the children between the note and the start) is
// cancelled here, after its start.
import { TickqError } from "../errors.js";
import type { WorkflowsRuntime as Runtime } from "./runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { StepContext } from "./types.js";
import { pause } from "./pause.js";

/** Runs `workflowName(input)` as a child of `parentId` for a step and answers its output. */
export type ChildInvoker = (
  parentId: string,
  workflowName: string,
  input: unknown,
  ctx: StepContext,
  id: string | undefined,
) => Promise<unknown>;

/** What the children need of the client: start a run, read it, cancel it (in the runtime of its partition). */
export interface ChildRuns {
  start(runtime: Runtime, name: string, input: unknown, id: string): Promise<string>;
  status(
    runtime: Runtime,
    id: string,
  ): Promise<{ status: string; output?: unknown; error?: { message: string } } | undefined>;
  cancel(runtime: Runtime, id: string): Promise<unknown>;
}

async function derivedId(key: string, attempt: number): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(key));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `wfc-${hex}-${attempt}`;
}

/** The child's id: the caller's `id` on the first try (`ID:TRY` after), else one drawn from the step's key and try. */
export async function childIdOf(ctx: StepContext, id: string | undefined): Promise<string> {
  if (id === undefined) return derivedId(ctx.idempotencyKey, ctx.attempt);
  return ctx.attempt === 1 ? id : `${id}:${ctx.attempt}`;
}

/** The runtime of the partition a run id lives in (one Redis: the runtime itself). */
export function runtimeOfRun(runtime: Runtime, id: string): Runtime {
  // partitions/ hands each partition's whole runtime (src/runtime.ts), workflows' slice included.
  return (runtime.partition?.runtimeOf?.(id) as Runtime | undefined) ?? runtime;
}

const kidsKey = (runtime: Runtime, parentId: string) => `${runtime.prefix}wf:kids:${parentId}`;

export function childInvoker(runtime: Runtime, runs: ChildRuns): ChildInvoker {
  return async (parentId, workflowName, input, ctx, id) => {
    const childId = await childIdOf(ctx, id);
    const at = runtimeOfRun(runtime, childId);
    await runCall(runtime, protocol.workflow_child, { kids: kidsKey(runtime, parentId) }, { child: childId });
    await runs.start(at, workflowName, input, childId);
    // A cancel of the parent marks it cancelled, then reads its children: one that read them between the
    // note and the start found no child to cancel, but then marked the parent before this read, so the
    // child is cancelled here. A cancel that marks the parent after this read finds the child started.
    if ((await runs.status(runtime, parentId))?.status === "cancelled") {
      await runs.cancel(at, childId);
      throw new Error(`workflow run ${parentId} was cancelled`);
    }
    for (let wait = 10; ; wait = Math.min(wait * 2, 500)) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const child = await runs.status(at, childId);
      if (child?.status === "completed") return child.output;
      if (child === undefined || child.status === "failed" || child.status === "cancelled") {
        throw Object.assign(
          new Error(
            `workflow ${workflowName} (${childId}) ended ${child?.status ?? "removed"}${child?.error ? `: ${child.error.message}` : ""}`,
          ),
          { name: "WorkflowChildFailed" },
        );
      }
      await pause(wait, ctx.signal);
    }
  };
}

/** Cancels the children of `parentId` that have not ended (each in its own partition). */
export async function cancelChildren(runtime: Runtime, parentId: string, runs: ChildRuns): Promise<void> {
  const { children } = await runCall(runtime, protocol.workflow_children, { kids: kidsKey(runtime, parentId) }, {});
  for (const child of children) {
    try {
      await runs.cancel(runtimeOfRun(runtime, child), child);
    } catch (error) {
      // Noted but never started (its step was aborted between the two): nothing to cancel.
      if (!(error instanceof TickqError && error.code === "NOT_FOUND")) throw error;
    }
  }
}
