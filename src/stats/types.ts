// What stats() reads: the counters and sizes of a prefix, with each capability's own
// (flow/, ordered/, workflows/ stats.ts), which read.ts gathers in one call.
import type { FlowStats } from "../flow/types.js";
import type { OrderedStats } from "../ordered/types.js";
import type { UnstartableJobs } from "../tick/unstartable-warnings.js";
import type { WorkflowStats } from "../workflows/types.js";

/** `tq.stats()`: Sidekiq's counters and sizes, and what tickq adds (ticks, warnings, ordered, flow). */
export interface Stats {
  /** Jobs that ran, succeeded or failed, since the prefix was first used (Sidekiq's `stat:processed`). */
  processed: number;
  /** Handler failures since the prefix was first used (`stat:failed`). */
  failed: number;
  /** Jobs never started because their expiry passed, since the prefix was first used (`stat:expired`). */
  expired: number;
  /** Jobs waiting, per queue. */
  queues: Record<string, number>;
  /**
   * Queue latency, per queue: how long (ms) the job that runs next in it has
   * waited since it was enqueued, as Sidekiq's `Queue#latency`; 0 when empty.
   * Read when asked (one list read per queue), not kept per job.
   */
  latency: Record<string, number>;
  /** Delayed jobs not yet due (the `schedule` set). */
  scheduled: number;
  /** Jobs waiting for a retry (the `retry` set). */
  retry: number;
  /** Jobs in the dead set. */
  dead: number;
  /** Dead-set entries evicted by `deadMaxJobs` or `deadMaxAgeSeconds`, ever. */
  deadEvicted: number;
  /** Jobs cancelled by tq.jobs.cancel, ever (`stat:cancelled`). */
  cancelled: number;
  /**
   * Jobs in ticks' lists: fetched and not yet acked — running, waiting for
   * a slot, finished and not yet acked, or left by a tick that died.
   */
  inflight: number;
  /** Jobs whose handlers live ticks are running, as each tick's last step reported it. */
  running: number;
  /** Jobs live ticks fetched and have not started (waiting for a slot), as each tick's last step reported it. */
  fetchedWaiting: number;
  /** Registered ticks, live or awaiting resurrection. */
  ticks: number;
  /** Redis' maxmemory-policy. */
  evictionPolicy: string;
  /** Queues whose jobs fetch skips (tq.queues.pause). */
  paused: string[];
  /** When a tick last began (epoch ms, Redis' clock); null if none ever did. */
  lastTickAt: number | null;
  /**
   * What endangers jobs right now, in words: no tick for 5 minutes while jobs
   * wait, jobs waiting in a queue no tick served lately, jobs no tick running
   * lately can start ({@link Stats.unstartable}), an eviction policy other
   * than noeviction.
   */
  warnings: string[];
  /**
   * Jobs that ticks met lately and could not start, by name: a timeoutMs above
   * the whole budget of every tick that served the queue lately, or a name the
   * tick that fetched them does not declare. Each is in `warnings` too.
   */
  unstartable: UnstartableJobs[];
  /** Per ordered job declared here: ids waiting and running, payloads waiting, dead. */
  ordered: Record<string, OrderedStats>;
  /** Recurring schedules Redis holds (declared by any deployment, not yet pruned). */
  schedules: number;
  /** Per job name declared here: slots held, jobs parked on a busy key, jobs deferred by a rate limit ({@link FlowStats}). */
  flow: Record<string, FlowStats>;
  /** Per workflow declared here: its runs by status ({@link WorkflowStats}); ended runs count until retention removes them. */
  workflows: Record<string, WorkflowStats>;
}
