// tq.workflows.retry and retryAll: resume failed (or cancelled) runs at the
// step that ended them, one workflow_retry call a run. Each call carries its
// own token, so a resent call answers what it did; a later retry of an
// attempt already resumed finds the run live since a retry and resumes
// nothing. retryAll pages the failed runs and retries each.
import { TickqError } from "../errors.js";
import { newJid } from "../job/codec.js";
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import { terminalJson } from "../printable.js";
import type { WorkflowRetry, WorkflowRetryAllOptions, WorkflowStatus } from "./types.js";

/** Runs retried at once by retryAll. */
const AT_ONCE = 16;

export async function retryRun(runtime: Runtime, runId: string): Promise<WorkflowRetry> {
  if (typeof runId !== "string" || runId === "") {
    throw new TickqError("BAD_ARGS", "workflows.retry: the run id must be a non-empty string");
  }
  const { outcome, status } = await runCall(
    runtime,
    protocol.workflow_retry,
    { run: `${runtime.prefix}wf:run:${runId}` },
    { id: runId, token: newJid() },
  );
  const run = `workflow run ${terminalJson(runId)}`;
  switch (outcome) {
    case "resumed":
    case "again":
      return { runId, status: status as WorkflowStatus };
    case "":
      throw new TickqError("NOT_FOUND", `no ${run}`);
    case "completed":
      throw new TickqError(
        "CONFLICT",
        `${run} completed: there is nothing to retry; fork it to run steps again (workflows.fork)`,
      );
    case "cancelling":
      throw new TickqError(
        "CONFLICT",
        `${run} was cancelled while a tick held it, and that tick has not heard yet: retry in a moment`,
      );
    default:
      throw new TickqError(
        "CONFLICT",
        `${run} is ${status}, not failed or cancelled: only an ended run is retried (cancel it first to restart it)`,
      );
  }
}

export async function retryAllRuns(
  runtime: Runtime,
  options: WorkflowRetryAllOptions,
  list: (cursor: string | undefined) => Promise<{ ids: string[]; cursor?: string }>,
): Promise<{ retried: number }> {
  if (typeof options?.name !== "string" || options.name === "") {
    throw new TickqError("BAD_ARGS", "workflows.retryAll: name must be the workflow's name");
  }
  if (options.status !== "failed") {
    throw new TickqError(
      "BAD_STATE",
      `workflows.retryAll: status must be "failed", got ${terminalJson(options.status)}`,
    );
  }
  let retried = 0;
  const seen = new Set<string>();
  // A retried run leaves the failed index, so each page starts over from the top; ids met once are skipped.
  for (;;) {
    const fresh: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(cursor);
      fresh.push(...page.ids.filter((id) => !seen.has(id)));
      cursor = fresh.length === 0 ? page.cursor : undefined;
    } while (cursor !== undefined);
    if (fresh.length === 0) return { retried };
    for (let i = 0; i < fresh.length; i += AT_ONCE) {
      const outcomes = await Promise.allSettled(fresh.slice(i, i + AT_ONCE).map((id) => retryRun(runtime, id)));
      for (const [k, o] of outcomes.entries()) {
        seen.add(fresh[i + k]!);
        if (o.status === "fulfilled") retried++;
        // A run another caller retried, or that is gone, is skipped; Redis failing is the caller's to hear.
        else if (!(o.reason instanceof TickqError && (o.reason.code === "CONFLICT" || o.reason.code === "NOT_FOUND")))
          throw o.reason;
      }
    }
  }
}
