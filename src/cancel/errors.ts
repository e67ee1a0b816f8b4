// The reason a cancelled job's ctx.signal aborts with.

/**
 * The `reason` of a job's `ctx.signal` when `tq.jobs.cancel` cancelled it while it ran (or before
 * it started). A handler may stop at once; one that ignores it finishes, but its result is
 * discarded and the job ends cancelled (not retried, not dead).
 */
export class TickqCancelled extends Error {
  constructor(
    /** The cancelled job's jid. */
    readonly jid: string,
  ) {
    super(`job ${jid} was cancelled (tq.jobs.cancel)`);
    this.name = "TickqCancelled";
  }
}

/** Whether `reason` (a signal's) is a cancel. */
export const isCancel = (reason: unknown): reason is TickqCancelled => reason instanceof TickqCancelled;
