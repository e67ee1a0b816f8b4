// The reason a cancelled job's ctx.signal aborts with.

/**
 * The `reason` of a job's `ctx.signal` when `tq.jobs.cancel` cancelled it while it ran (or before
 * it started). A handler may stop at once; one that ignores it finishes, but its result is
 * discarded and the job ends cancelled (not retried, not dead).
 */
export class TickqCancelled extends Error {
  /** For an ordered id's run (tq.jobs.cancelOrdered): its name and id; `jid` is then "o NAME FENCE ID". */
  readonly ordered?: {
    /** The ordered job's name. */
    name: string;
    /** The id whose run was cancelled. */
    id: string;
  };
  constructor(
    /** The cancelled job's jid; for a workflow run's step, "w FENCE RUN_ID". */
    readonly jid: string,
  ) {
    const ordered = orderedOf(jid);
    const run = workflowRunOf(jid);
    super(
      ordered
        ? `ordered job ${ordered.name} id ${JSON.stringify(ordered.id)} was cancelled (tq.jobs.cancelOrdered)`
        : run !== undefined
          ? `workflow run ${JSON.stringify(run)} was cancelled (tq.workflows.cancel)`
          : `job ${jid} was cancelled (tq.jobs.cancel)`,
    );
    this.name = "TickqCancelled";
    if (ordered) this.ordered = ordered;
  }
}

/** An ordered run's cancel key, "o NAME FENCE ID" (lib/ordered/cancel-ids.lua): no jid holds a space. */
export const orderedCancelKey = (name: string, fence: number, id: string): string => `o ${name} ${fence} ${id}`;

/** A workflow run's cancel key, "w FENCE RUN_ID" (workflow_cancel.lua): its execution by that fence. */
export const workflowCancelKey = (fence: number, runId: string): string => `w ${fence} ${runId}`;

function workflowRunOf(key: string): string | undefined {
  return /^w \d+ ([\s\S]*)$/.exec(key)?.[1];
}

function orderedOf(key: string): { name: string; id: string } | undefined {
  const match = /^o (\S+) \d+ ([\s\S]*)$/.exec(key);
  return match ? { name: match[1] as string, id: match[2] as string } : undefined;
}

/** Whether `reason` (a signal's) is a cancel. */
export const isCancel = (reason: unknown): reason is TickqCancelled => reason instanceof TickqCancelled;
