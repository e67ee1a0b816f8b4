// The workflow pass of a tick, beside its job pipeline: claim due runs,
// execute them (execute.ts), commit what they did. Every exchange with Redis
// is one workflow_tick call that carries the commits queued since the last
// one (from every run that advanced meanwhile) and claims runs for the room
// left, so many runs advancing together share round trips. Calls go one at
// a time, numbered in their own series (workflow_tick.lua keeps the last
// reply for a resend). A tick of an app with no workflow never runs it.
import { monotonicMs } from "../tick/clock.js";
import type { Fence } from "../tick/lease.js";
import type { TickCalls } from "../tick/calls.js";
import { learnClock, redisNowMs, type Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { orderedGuard } from "../ordered/guard.js";
import { executeRun, type ClaimedRun, type Commit, type ExecutionEnd } from "./execute.js";
import { readStepRecords } from "./records.js";
import { workflowDefinition } from "./registry.js";

const nextTurn: () => Promise<void> =
  typeof setImmediate === "function"
    ? () => new Promise((resolve) => setImmediate(resolve))
    : () => new Promise((resolve) => setTimeout(resolve, 0));

export interface WorkflowPassInput {
  tickId: string;
  calls: TickCalls;
  fence: Fence;
  /** The tick's signal: aborts at its deadline or when its lease is lost. */
  signal: AbortSignal;
  leaseMs: number;
  /** Runs executed at once. */
  concurrency: number;
  /** Monotonic ms after which no step starts (the run yields). */
  stopAt: number;
}

export interface WorkflowPassReport {
  /** Executions, by how they ended. */
  ends: Partial<Record<ExecutionEnd, number>>;
  /** Step functions run. */
  steps: number;
  /** Runs are still due, or some yielded: a later tick has workflow work. */
  more: boolean;
  /** False when a call found the lease gone. */
  held: boolean;
}

interface Queued {
  commit: Commit;
  resolve(applied: boolean): void;
}

export async function runWorkflowPass(runtime: Runtime, input: WorkflowPassInput): Promise<WorkflowPassReport> {
  const { tickId, calls, fence, signal, leaseMs, concurrency, stopAt } = input;
  const report: WorkflowPassReport = { ends: {}, steps: 0, more: false, held: true };
  const queued: Queued[] = [];
  const executions = new Set<Promise<void>>();
  let seq = 0;
  let wake: () => void = () => {};
  const changed = () => new Promise<void>((resolve) => (wake = resolve));
  const stopping = () => signal.aborted || !report.held || monotonicMs() >= stopAt || !fence.valid();
  const guard = orderedGuard(fence, signal, leaseMs);

  const env = {
    commit: (commit: Commit) =>
      new Promise<boolean>((resolve) => {
        queued.push({ commit, resolve });
        wake();
      }),
    guard: () => ({ signal: guard.signal(), done: guard.done }),
    stopping,
    nowMs: () => redisNowMs(runtime),
    warn: (message: string) => runtime.logger.warn(message),
  };

  const start = (run: ClaimedRun) => {
    const definition = workflowDefinition(runtime.workflows, run.name);
    const execution = (async () => {
      if (!definition) {
        // A run of a workflow this deployment does not declare (an older or newer one): back to the due set.
        await env.commit({
          id: run.id,
          fence: String(run.fence),
          disposition: "r",
          extra: "60000",
          steps: [],
          parks: [],
        });
        runtime.logger.warn(
          `tickq: workflow run ${run.id} is of workflow "${run.name}", which this deployment does not declare; it waits for one that does`,
        );
        return;
      }
      const { end, steps } = await executeRun(run, definition, env);
      report.ends[end] = (report.ends[end] ?? 0) + 1;
      report.steps += steps;
      if (end === "yielded") report.more = true;
    })()
      .catch((error: unknown) => runtime.logger.error(`tickq: workflow run ${run.id}: ${String(error)}`))
      .finally(() => {
        executions.delete(execution);
        wake();
      });
    executions.add(execution);
  };

  let due = true;
  const exchange = async () => {
    const batch = queued.splice(0);
    const claim = stopping() ? 0 : Math.max(0, concurrency - executions.size);
    try {
      const reply = await calls.send(protocol.workflow_tick, {
        tickId,
        call: ++seq,
        claim,
        retentionMs: runtime.workflowRetentionMs,
        commits: batch.map((q) => q.commit),
      });
      learnClock(runtime, reply.nowMs);
      if (!reply.leaseHeld) report.held = false;
      batch.forEach((q, i) => {
        q.resolve(reply.committed[i] === 1);
      });
      due = reply.more;
      for (const c of reply.claimed) {
        start({ id: c.id, name: c.name, input: c.input, fence: Number(c.fence), steps: readStepRecords(c.steps) });
      }
    } catch (error) {
      // Not committed: each run goes back once the tick's lease is gone, and replays its uncommitted steps.
      for (const q of batch) q.resolve(false);
      report.held = false;
      runtime.logger.warn(`tickq: workflow call failed: ${String(error)}`);
    }
  };

  try {
    await exchange();
    for (;;) {
      if (queued.length > 0) {
        // One turn of the event loop first, so executions whose steps end together share the call.
        await nextTurn();
        await exchange();
      } else if (executions.size === 0) {
        if (!due || stopping()) break;
        await exchange();
      } else await changed();
    }
  } finally {
    guard.stop();
  }
  report.more ||= due;
  return report;
}
