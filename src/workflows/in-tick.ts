// What tick/run.ts starts for workflows: the pass (pass.ts) when the app
// declares a workflow, else nothing, so such a tick's calls are unchanged.
import type { Runtime } from "../tick/runtime.js";
import { runWorkflowPass, type WorkflowPassInput, type WorkflowPassReport } from "./pass.js";

export function workflowPassOf(runtime: Runtime, input: WorkflowPassInput): Promise<WorkflowPassReport | undefined> {
  if (Object.keys(runtime.workflows).length === 0) return Promise.resolve(undefined);
  return runWorkflowPass(runtime, input);
}
