// Workflows in a tick (tick/capability.ts): begin's workflows section claims
// the first runs (so a tick that finds none due sends no workflow call at
// all), the pass (pass.ts) runs beside the job pipeline until the budget,
// and its last commits ride on finish. An app that declares no workflow
// sends begin's "nothing of workflows" (-1) and starts no pass.
import type { Capability } from "../tick/capability.js";
import type { WorkflowsRuntime } from "./runtime.js";
import { runWorkflowPass, type WorkflowPassReport } from "./pass.js";
import { CLAIM_RUNS } from "./call-room.js";
import type { TickWorkflowReport } from "./types.js";
import { noteCommitted, tickStarts } from "./start-and-wait.js";

export const workflowsCapability = (runtime: WorkflowsRuntime): Capability => ({
  name: "workflows",
  forTick(start) {
    const declared = Object.keys(runtime.workflows).length > 0;
    // No workflow declared: begin's "nothing of workflows" and finish's empty commits, and no pass, no
    // promise for `beside` nor `end` (what the full part does then, in two functions).
    if (!declared)
      return {
        beginArgs: () => ({ workflows: workflowBeginArgs(runtime, 0), starts: [] }),
        finishArgs: noWorkflowsAtFinish,
      };
    let flowed: WorkflowPassReport | undefined;
    /** Whether the tick's finish answered (its commits stored or refused); not when it failed. */
    let finishAnswered = false;
    // startAndWait's tick: its begin starts the run (start-and-wait.ts).
    const handoff = declared ? tickStarts.get(start.tickId) : undefined;
    return {
      beginArgs: (t) => ({
        workflows: workflowBeginArgs(runtime, Math.min(runsHeld(t), CLAIM_RUNS)),
        starts: handoff ? [handoff.start] : [],
      }),
      // begin's answer for startAndWait as soon as it is read: a call that fails after it (housekeeping)
      // must not leave startAndWait unaware of the run begin started.
      ...(handoff
        ? {
            begun: (begun) => {
              if (begun.workflows?.started) handoff.started = begun.workflows.started;
              return undefined;
            },
          }
        : {}),
      async beside(t, begun) {
        if (!declared) return;
        flowed = await runWorkflowPass(runtime, {
          tickId: t.tickId,
          calls: t.calls,
          fence: t.fence,
          signal: t.signal,
          leaseMs: t.leaseMs,
          graceMs: t.graceMs,
          concurrency: t.concurrency,
          runs: runsHeld(t),
          first: begun.workflows,
          pipelineDone: () => t.pipelineDone(),
          ...(handoff ? { committed: (commit) => noteCommitted(handoff, commit) } : {}),
          // The last commits and finish fit in the budget's last tenth.
          stopAt: t.startedAt + t.budgetMs * 0.9,
        });
        if (!flowed.held) t.lost();
      },
      more: () => flowed?.more === true,
      finishArgs: () => ({ workflows: flowed?.atFinish ?? [] }),
      finished: (reply) => {
        finishAnswered = true;
        // A finish that found the lease gone (or taken before a Redis restart) committed none of them.
        if (flowed && reply.leaseGone === 1) flowed.held = false;
        return flowed?.settle(reply.committed);
      },
      async end(report) {
        if (!flowed) return;
        // Commits left for a finish that failed: taken as refused, so their executions end (their runs are claimed
        // again). Unanswered, not refused (Redis may have stored them): no warning of refused commits, as for a
        // workflow call that failed (pass.ts).
        if (!finishAnswered && flowed.atFinish.length > 0) flowed.held = false;
        await flowed.settle(undefined);
        report.workflows = workflowTickReport(flowed);
        if (report.workflows.lost > 0 && flowed.held && !report.leaseLost)
          warnRefused(runtime, report.tickId, report.workflows.lost, flowed.lostRuns);
      },
    };
  },
});

const noWorkflowsAtFinish = () => ({ workflows: [] });

/**
 * Runs a tick holds at once: a batch of them (never fewer than `concurrency`). A run spends most of its
 * time waiting for the commit of its last step, so the tick holds more runs than it runs step functions
 * (at most `concurrency` at once): each workflow call then carries a step of every run it holds.
 */
export function runsHeld(t: { concurrency: number; batch?: number }): number {
  return Math.max(t.concurrency, t.batch ?? t.concurrency);
}

/** begin.lua's workflows part: an app with no workflow claims nothing there (-1: nothing of workflows is touched). */
export function workflowBeginArgs(runtime: WorkflowsRuntime, runs: number): { claim: number; retentionMs: number } {
  const declared = Object.keys(runtime.workflows).length > 0;
  return { claim: declared ? runs : -1, retentionMs: runtime.workflowRetentionMs };
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
    abandoned: ends.abandoned ?? 0,
    lost: ends.lost ?? 0,
  };
}

/**
 * Runs whose commit Redis refused while the tick held its lease: no longer this tick's with the fence of its
 * claim. No cancel (that ends as `cancelled`) and no other tick (it takes a run only from a dead tick) does
 * that: a Redis restart or failover forgot the claim and the scripts could not tell (docs/running-redis.md).
 */
function warnRefused(runtime: WorkflowsRuntime, tickId: string, lost: number, named: readonly string[]): void {
  const runs = named.join(", ") + (lost > named.length ? ", …" : "");
  runtime.logger.warn(
    `tickq: tick ${tickId}: Redis refused the commits of ${lost} workflow run(s) it held (${runs}): they were no longer this tick's, as after a Redis restart or failover that forgot their claims; the steps in those commits were not stored and run again`,
  );
}
