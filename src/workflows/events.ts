// workflow.completed and workflow.failed: fired once a run's end is committed
// (a refused commit fires nothing: the run is another execution's). A
// listener that throws or rejects is logged, never breaks the tick; the pass
// waits briefly for what listeners return, as the tick does for job events.
import type { Runtime } from "../tick/runtime.js";
import type { Commit } from "./execute.js";
import type { WorkflowEvent, WorkflowFailure } from "./types.js";

const FLUSH_MS = 5_000;

export interface WorkflowEvents {
  /** A commit was applied: fires its run's end, if it is one. */
  committed(runName: string, commit: Commit): void;
  flush(): Promise<void>;
}

export function workflowEvents(runtime: Runtime): WorkflowEvents {
  const pending: Promise<unknown>[] = [];
  return {
    committed(name, commit) {
      if (commit.disposition !== "d" && commit.disposition !== "f") return;
      const kind = commit.disposition === "d" ? "workflow.completed" : "workflow.failed";
      const listeners = runtime.listeners[kind];
      if (listeners.size === 0) return;
      const event: WorkflowEvent =
        kind === "workflow.completed"
          ? { runId: commit.id, name, output: JSON.parse(commit.extra) }
          : { runId: commit.id, name, error: JSON.parse(commit.extra) as WorkflowFailure };
      const complain = (error: unknown) =>
        runtime.logger.error(`tickq: a "${kind}" listener failed for workflow run ${commit.id}: ${String(error)}`);
      for (const listener of listeners) {
        try {
          const result = listener(event);
          if (result instanceof Promise) pending.push(result.catch(complain));
        } catch (error) {
          complain(error);
        }
      }
    },
    async flush() {
      if (pending.length === 0) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([Promise.all(pending), new Promise((resolve) => (timer = setTimeout(resolve, FLUSH_MS)))]);
      clearTimeout(timer);
    },
  };
}
