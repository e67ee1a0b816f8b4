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
    /** The cancelled job's jid. */
    readonly jid: string,
  ) {
    const ordered = orderedOf(jid);
    super(
      ordered
        ? `ordered job ${ordered.name} id ${JSON.stringify(ordered.id)} was cancelled (tq.jobs.cancelOrdered)`
        : `job ${jid} was cancelled (tq.jobs.cancel)`,
    );
    this.name = "TickqCancelled";
    if (ordered) this.ordered = ordered;
  }
}

/** An ordered run's cancel key, "o NAME FENCE ID" (lib/ordered/cancel-ids.lua): no jid holds a space. */
export const orderedCancelKey = (name: string, fence: number, id: string): string => `o ${name} ${fence} ${id}`;

function orderedOf(key: string): { name: string; id: string } | undefined {
  const match = /^o (\S+) \d+ ([\s\S]*)$/.exec(key);
  return match ? { name: match[1] as string, id: match[2] as string } : undefined;
}

/** Whether `reason` (a signal's) is a cancel. */
export const isCancel = (reason: unknown): reason is TickqCancelled => reason instanceof TickqCancelled;
