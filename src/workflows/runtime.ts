// The runtime as workflows sees it: the tick core's, and its own slice.
import type { Runtime } from "../tick/runtime.js";
import type { CancelSlice } from "../cancel/runtime.js";
import type { WorkflowRegistry } from "./types.js";

/** What durable workflows add to the runtime (src/runtime.ts builds it). */
export interface WorkflowsSlice {
  /** Durable workflows; empty: ticks send no workflow call. */
  workflows: WorkflowRegistry;
  /** How long ended workflow runs are kept, in ms. */
  workflowRetentionMs: number;
  /** How long sent events are kept for later waits, in ms (0: none). */
  eventRetentionMs: number;
}

/** With the cancels its executions watch. */
export type WorkflowsRuntime = Runtime & WorkflowsSlice & CancelSlice;
