// What workflow runs throw: a run's failure as result() reports it, and the
// determinism guard's error.
import { TickqError } from "../errors.js";
import type { WorkflowFailure, WorkflowStatus } from "./types.js";

/** `tq.workflows.result`: the run ended failed or cancelled; `failure` says why. */
export class WorkflowFailedError extends TickqError {
  constructor(
    /** The run's id. */
    readonly runId: string,
    /** How it ended. */
    readonly status: Extract<WorkflowStatus, "failed" | "cancelled">,
    /** Its error (for a failed run). */
    readonly failure: WorkflowFailure | undefined,
  ) {
    super(
      "WORKFLOW_FAILED",
      `workflow run ${runId} ended ${status}${failure ? `: ${failure.name}: ${failure.message}` : ""}`,
    );
    this.name = "WorkflowFailedError";
  }
}

/** A deployed change renamed, reordered or removed a step the run already completed: the run fails instead of doing something wrong. */
export function nonDeterministic(message: string): Error {
  return Object.assign(new Error(message), { name: "TickqNonDeterministic" });
}

export const isNonDeterministic = (error: unknown): boolean =>
  error instanceof Error && error.name === "TickqNonDeterministic";
