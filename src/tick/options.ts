// The options of one tick (`tq.tick`), which kicks and fan-out pass on.

/** Options of `tq.tick`: its budget, batch size, concurrency and lease. */
export interface TickOptions {
  /** Wall-clock budget of the tick; default 10,000 ms. */
  budgetMs?: number;
  /**
   * Jobs fetched per round trip; default 50. The tick fetches the next batch
   * while half a batch (more when round trips are slow) still waits for a
   * free slot, so it holds at most 2 batches fetched but not started.
   */
  batch?: number;
  /**
   * Handlers run at once; default 10. Workflow step functions count the same way, while the tick holds up
   * to `batch` workflow runs (never fewer than this): a held run mostly waits for its last step's commit.
   */
  concurrency?: number;
  /** Lease TTL, extended while the tick runs; default 30,000 ms. */
  leaseMs?: number;
  /** After the deadline, how long running handlers get to settle; default 1,000 ms. */
  graceMs?: number;
  /** Jobs resurrected per pass; default 1,000. */
  resurrectLimit?: number;
  /** Due scheduled and retry jobs moved per pass; default 1,000. */
  scheduleLimit?: number;
  /**
   * The longest a tick goes without a call to Redis while it runs, so that a cancel
   * (tq.jobs.cancel) reaches a running handler that soon (within about 1.25 times this, plus a
   * round trip: under 1 s by default); default 750 ms. A tick whose steps come more often than
   * this makes no extra call.
   */
  cancelCheckMs?: number;
  /**
   * Start only while fewer than this many ticks are live (registered with a
   * live lease, or reserved by tq.reserveTicks); otherwise return at once
   * with `skipped: true`. Default: no limit.
   */
  maxParallel?: number;
  /** An id granted by tq.reserveTicks for this tick (its reserved slot); default a new one. */
  tickId?: string;
  /**
   * Called once, right after the tick began, when its first fetch filled the
   * batch (more work waits): a caller can start more ticks now (fan-out)
   * rather than when this one ends with `more`.
   */
  onBacklog?: () => void;
  /**
   * With `partitions` above 1: how many partitions this tick serves, in parallel, taken in
   * rotation so none starves; default all of them.
   */
  partitionsPerTick?: number;
}
