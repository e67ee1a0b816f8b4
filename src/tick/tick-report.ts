// What one tick did, as tick() returns it. A capability adds its own counts by
// declaration merging (workflows' `workflows`, src/workflows/types.ts).

/** What one tick did, counted by outcome. */
export interface TickReport {
  /** The tick's id (its lease is `tick:ID`). */
  tickId: string;
  /** Jobs fetched from queues. */
  fetched: number;
  /** Jobs whose handler returned. */
  succeeded: number;
  /** Handler failures: retried + dead because retries ran out. */
  failed: number;
  /** Handler failures scheduled for a retry. */
  retried: number;
  /** Jobs sent to the dead set: failures out of retries, poison, malformed, unknown. */
  dead: number;
  /** Failures out of retries whose job says `dead: false`: dropped, as Sidekiq drops them (counted in `failed` too). */
  discarded: number;
  /** Jobs ended as cancelled (tq.jobs.cancel) by this tick: never started, or their result discarded. */
  cancelled: number;
  /** Jobs of dead ticks put back at the head of their queue. */
  resurrected: number;
  /** Due delayed and retry jobs moved into their queue. */
  scheduled: number;
  /** Jobs enqueued for due slots of recurring schedules. */
  recurring: number;
  /** Jobs the tick's fetches found past their expiry: recorded as expired, never started. */
  expired: number;
  /** Fetched jobs put back at the head of their queue: unstarted, or interrupted at the deadline. */
  requeued: number;
  /** Handlers still running after the grace period: left for resurrection (workflow runs: `workflows.abandoned`). */
  abandoned: number;
  /** Dead-set entries evicted by the size or age cap. */
  deadEvicted: number;
  /** True when the tick stopped with work left (a full last batch, or housekeeping left). */
  more: boolean;
  /**
   * Steps the tick gave up on (no answer within redisTimeoutMs and its resend) whose resend before finish
   * was answered: the tick stopped early, nothing lost. Absent when none.
   */
  givenUpSteps?: number;
  /** True when the tick found its lease gone and stopped early. */
  leaseLost: boolean;
  /** Redis calls the tick made. */
  roundTrips: number;
  /** Wall-clock time the tick took. */
  durationMs: number;
  /** True when the tick did not start: maxParallel ticks were already live. */
  skipped?: boolean;
}
