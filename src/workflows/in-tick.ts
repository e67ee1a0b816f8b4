// What tick/run.ts starts for workflows: the pass (pass.ts) when the app
// declares a workflow, else nothing, so such a tick's calls are unchanged.
// Its first claim rides on begin (workflowBeginArgs), so a tick that finds no
// run due sends no workflow call at all.
import type { Runtime } from "../tick/runtime.js";
import { runWorkflowPass, type WorkflowPassInput, type WorkflowPassReport } from "./pass.js";
import type { TickWorkflowReport } from "./types.js";

/** begin.lua's workflows part: an app with no workflow claims nothing there (-1: nothing of workflows is touched). */
export function workflowBeginArgs(runtime: Runtime, concurrency: number): { claim: number; retentionMs: number } {
  const declared = Object.keys(runtime.workflows).length > 0;
  return { claim: declared ? concurrency : -1, retentionMs: runtime.workflowRetentionMs };
}

export function workflowPassOf(runtime: Runtime, input: WorkflowPassInput): Promise<WorkflowPassReport | undefined> {
  if (Object.keys(runtime.workflows).length === 0) return Promise.resolve(undefined);
  return runWorkflowPass(runtime, input);
}

/** The tick report's `workflows`, once the pass settled (its last commits may ride on finish). */
export function workflowTickReport(pass: WorkflowPassReport): TickWorkflowReport {
  const { ends } = pass;
  return {
    steps: pass.committed,
    completed: ends.completed ?? 0,
    failed: ends.failed ?? 0,
    parked: ends.parked ?? 0,
    retrying: ends.retrying ?? 0,
    cancelled: ends.cancelled ?? 0,
  };
}
