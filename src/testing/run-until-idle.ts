// Ticks until nothing is due at the test's now, and says what ran. A tick that fetched,
// scheduled, resurrected, expired or moved a workflow run did something; the first that
// did nothing, with nothing left over, means every job is done or waits for a later time.
import { TickqError } from "../errors.js";
import type { Tickq } from "../tickq.js";
import type { JobRegistry } from "../job/definition.js";
import type { TickReport } from "../types.js";
import type { TickWorkflowReport } from "../workflows/types.js";

/** What ran, per job name, in a runUntilIdle. */
export interface JobCounts {
  /** Runs whose handler returned. */
  succeeded: number;
  /** Handler failures (retried, or out of retries). */
  failed: number;
  /** Jobs sent to the dead set. */
  dead: number;
}

/** Workflow runs' outcomes in a runUntilIdle, summed over its ticks. */
export type RunCounts = Pick<TickWorkflowReport, "completed" | "failed" | "parked" | "retrying" | "cancelled">;

/** What `runUntilIdle` answers. */
export interface IdleReport {
  /** Ticks run, the last one idle. */
  ticks: number;
  /** Per job name: its runs' outcomes. */
  jobs: Record<string, JobCounts>;
  /** Workflow runs by outcome: completed, failed, parked (a sleep or a wait), retrying, cancelled. */
  runs: RunCounts;
}

/** `runUntilIdle`'s options. */
export interface RunUntilIdleOptions {
  /** Ticks allowed before it fails with a BAD_STATE error (a retry loop, a run that never parks); default 100. */
  maxTicks?: number;
}

const RUN_FIELDS = ["completed", "failed", "parked", "retrying", "cancelled"] as const;

/** Counts job events of `tq` into whichever report is open. */
export function idleRunner(tq: Pick<Tickq<JobRegistry>, "tick" | "on">) {
  let open: IdleReport | undefined;
  const counts = (name: string): JobCounts => {
    const jobs = open!.jobs;
    if (!Object.hasOwn(jobs, name)) jobs[name] = { succeeded: 0, failed: 0, dead: 0 };
    return jobs[name]!;
  };
  tq.on("succeeded", (e) => void (open && counts(e.name).succeeded++));
  tq.on("failed", (e) => void (open && counts(e.name).failed++));
  tq.on("dead", (e) => void (open && counts(e.name).dead++));

  return async function runUntilIdle(options: RunUntilIdleOptions = {}): Promise<IdleReport> {
    const maxTicks = options.maxTicks ?? 100;
    if (!Number.isInteger(maxTicks) || maxTicks < 1) {
      throw new TickqError(
        "BAD_ARGS",
        `runUntilIdle: maxTicks must be a whole number of at least 1, got ${String(maxTicks)}`,
      );
    }
    const report: IdleReport = { ticks: 0, jobs: Object.create(null), runs: emptyRuns() };
    open = report;
    try {
      while (report.ticks < maxTicks) {
        const tick = await tq.tick();
        report.ticks++;
        addRuns(report.runs, tick.workflows);
        if (idle(tick)) return report;
      }
    } finally {
      open = undefined;
    }
    throw new TickqError(
      "BAD_STATE",
      `runUntilIdle: still busy after ${maxTicks} ticks (${summary(report)}): a job that re-enqueues itself or retries at once, ` +
        "or a workflow run that never parks? Raise maxTicks if the work is only long",
    );
  };
}

function idle(t: TickReport): boolean {
  const w = t.workflows;
  const flowed = w !== undefined && w.steps + w.completed + w.failed + w.parked + w.retrying + w.cancelled > 0;
  return !t.more && !flowed && t.fetched + t.scheduled + t.recurring + t.resurrected + t.expired + t.cancelled === 0;
}

function emptyRuns(): RunCounts {
  return { completed: 0, failed: 0, parked: 0, retrying: 0, cancelled: 0 };
}

function addRuns(runs: RunCounts, w: TickWorkflowReport | undefined): void {
  if (w) for (const field of RUN_FIELDS) runs[field] += w[field];
}

function summary(r: IdleReport): string {
  const jobs = Object.entries(r.jobs).map(
    ([name, c]) => `${JSON.stringify(name)} ${c.succeeded}✓ ${c.failed}✗ ${c.dead} dead`,
  );
  const runs = RUN_FIELDS.filter((f) => r.runs[f] > 0).map((f) => `${r.runs[f]} runs ${f}`);
  return [...jobs, ...runs].join(", ") || "nothing finished";
}
