// The jobs API's terms (tq.jobs, tq.queues).
//
// state    where a job is: queued (in `queue:NAME`), scheduled (`schedule`),
//          retry (`retry`), dead (`dead`), running (fetched by a tick into its
//          in-process list and not yet acked: running, or about to),
//          succeeded (kept as history under keepCompleted, in `succeeded`),
//          cancelled (tq.jobs.cancel, `cancelled`), expired (`expired`, bounded like the dead set)
// cursor   an opaque string that resumes a listing where its page ended
import type { JobPayload } from "../job/payload.js";
import type { JobResult } from "../results/types.js";

/**
 * Where a job is: waiting in a queue, delayed, waiting for a retry, dead, fetched by a tick, or
 * ended and kept as history: succeeded, cancelled, or expired (not started by its expiry).
 */
export type JobState = "queued" | "scheduled" | "retry" | "dead" | "running" | "succeeded" | "cancelled" | "expired";

/** A job as the jobs API reports it: where it is, and its stored text. */
export interface JobInfo {
  /** Where it is now. */
  state: JobState;
  /** Its id. */
  jid: string;
  /** The job name (Sidekiq's `class`). */
  name: string;
  /** The queue it belongs to. */
  queue: string;
  /** The job as stored, parsed for reading (`raw` is its exact text; numbers past 2**53 lose digits here only). */
  job: JobPayload;
  /** The stored text, byte for byte. */
  raw: string;
  /** scheduled and retry: when it is due; dead: when it died; succeeded, cancelled: when it finished; expired: when a fetch found it expired (epoch ms). */
  at?: number;
  /** queued: how many jobs run before it in its queue (0: next); absent for a job with a priority or a group. */
  position?: number;
  /** Its priority within its queue, when enqueued with one other than 0. */
  priority?: number;
  /** Its group for fair shares, when it has one. */
  group?: string;
  /** queued, parked on a busy flow key (flow control): its park list, `flow:park:KEY`; `position` counts within it. */
  waitingOn?: string;
  /** running: the tick that fetched it. */
  tick?: string;
  /** running: false when that tick's lease is gone (the job waits to be resurrected). */
  tickAlive?: boolean;
  /** find only: `error_backtrace` read back into lines (it is stored compressed, as Sidekiq stores it). */
  backtrace?: string[];
  /** running: the last value its handler reported with ctx.progress, if any. */
  progress?: unknown;
  /** succeeded: what its handler returned (absent when it returned nothing, or the result was not kept). */
  result?: unknown;
  /** succeeded: why its result was not kept (over maxResultBytes, not JSON). */
  resultError?: string;
  /** succeeded: when it finished (epoch ms, Redis' clock), as `at`. */
  finishedAt?: number;
  /** succeeded: how long its handler ran, in ms. */
  durationMs?: number;
  /** A job enqueued with `expiresInMs`: when it expires (epoch ms, Redis' clock). */
  expiresAt?: number;
  /**
   * The retries a failure of this job gets, and where that comes from: its own `retry`, or, when it carries
   * none, its definition's (`job.retry` then reads false, though the tick applies the definition's).
   * Absent when it carries none and no definition of its name is registered here.
   */
  retries?: {
    /** How many times a failure is retried before the job dies. */
    limit: number;
    /** Whose `retry` that is: the job's own, or its registered definition's. */
    from: "job" | "definition";
  };
  /** cancelled: where it was when cancelled (its finishedAt is when). */
  cancelledFrom?: CancelledFrom;
  /**
   * cancelled: the record of an ordered id's cancel (tq.jobs.cancelOrdered). Then `name` is the
   * ordered job's, `queue` is "" and `job.args` is `[id, payloads]`.
   */
  ordered?: OrderedRecord;
}

/** What a cancelled ordered id's record says of it (JobInfo.ordered). */
export interface OrderedRecord {
  /** The id. */
  id: string;
  /** The cancelled run's fence; absent for payloads that never ran (cancelled while waiting). */
  fence?: number;
  /** The payloads it took, lowest score first. */
  payloads: unknown[];
  /** Their scores. */
  scores: number[];
}

/** Where a job was when tq.jobs.cancel cancelled it. */
export type CancelledFrom = "queued" | "scheduled" | "retry" | "running";

/** What tq.jobs.cancel did. */
export interface CancelResult {
  /** The job's id. */
  jid: string;
  /**
   * cancelled: it was taken out where it waited and recorded cancelled. cancelling: it was held
   * by a tick (running, or fetched and not started); that tick heard of the cancel (its
   * `ctx.signal` aborted with TickqCancelled; it never starts), and the job is recorded cancelled
   * when that tick acks it, whatever its handler does.
   */
  state: "cancelled" | "cancelling";
  /** Where it was. */
  from: CancelledFrom;
  /**
   * cancelling only: false when its tick did not confirm within the wait (a frozen process, or one
   * whose lease is gone); the job is still recorded cancelled when it is acked or resurrected, but a
   * tick that never heard may have started it.
   */
  heard?: boolean;
}

/** What tq.jobs.cancelOrdered did. */
export interface OrderedCancelResult {
  /** The ordered job's name. */
  name: string;
  /** The id. */
  id: string;
  /**
   * cancelled: it waited and was taken out with its payloads, or its run has already been settled
   * as cancelled. cancelling: a tick holds its run; that tick heard (`heard`), and records the run
   * cancelled when it acks it, whatever its handler does.
   */
  state: "cancelled" | "cancelling";
  /** Where it was: queued (due), scheduled (due later), retry (backing off) or running. */
  from: CancelledFrom;
  /**
   * Payloads this call took at once: a waiting id's, or those waiting behind a running run (the
   * run's own are recorded with it when its tick settles it).
   */
  payloads: number;
  /** cancelling only: false when its tick did not confirm within the wait (see {@link CancelResult}). */
  heard?: boolean;
  /**
   * The jids of the history records this cancel makes (`tq.jobs.find`, `list("cancelled")`): a
   * waiting id's; for a run, that of the payloads waiting behind it (when it took any), then the
   * run's own (`o-FENCE-NAME`), written when its tick settles the run.
   */
  jids: string[];
}

/** Options of `tq.jobs.list`: filters, page size, order and where to resume. */
export interface ListOptions {
  /** Only jobs of this queue; for `queued`, the queue to list (default: every queue, by name). */
  queue?: string;
  /** Only jobs of this name. */
  name?: string;
  /** Where the previous page ended. */
  cursor?: string | null;
  /** Jobs per page, 1–1,000; default 25. */
  limit?: number;
  /**
   * "oldest": a queue's next job first, the soonest due first, the oldest death or success first.
   * Default "oldest", but "newest" for `dead` and the history states (`succeeded`, `cancelled`, `expired`).
   */
  order?: "oldest" | "newest";
}

/** One page of `tq.jobs.list`. */
export interface JobPage {
  /** The jobs of this page, in the order asked for. */
  jobs: JobInfo[];
  /** Pass it back for the next page; null when there is none. A page may hold fewer than `limit` jobs and still have one. */
  cursor: string | null;
}

/** Filters of `retryAll` and `deleteAll`. */
export interface BulkOptions {
  /** Only jobs of this name; default every name. */
  name?: string;
  /** Only jobs of this queue; default every queue (`deleteAll("queued")` needs it). */
  queue?: string;
}

/** `tq.jobs`: find, list, retry, delete and run jobs by jid or by state. */
export interface JobsApi {
  /** Where the job with this jid is now, or null if it is nowhere (it ran and no record was kept, or never existed). */
  find(jid: string): Promise<JobInfo | null>;
  /** One page of the jobs in a state, from `cursor`. Never loads a whole set. */
  list(state: JobState, options?: ListOptions): Promise<JobPage>;
  /**
   * A scheduled, retry or dead job to the tail of its queue now (retry_count lowered by one, as Sidekiq does).
   * Answers the job as pushed; Redis sets its `enqueued_at` to the time of the move.
   */
  retry(jid: string): Promise<JobInfo>;
  /** Every job of a state (retry, dead, scheduled), optionally filtered, as `retry` does; returns how many moved. */
  retryAll(state: "retry" | "dead" | "scheduled", options?: BulkOptions): Promise<number>;
  /** Deletes a queued, scheduled, retry or dead job, or one kept as history (succeeded, cancelled, expired); returns it as it was. */
  delete(jid: string): Promise<JobInfo>;
  /** Deletes every job of a state (a queue: name it with `queue`), optionally by name; returns how many. */
  deleteAll(state: Exclude<JobState, "running">, options?: BulkOptions): Promise<number>;
  /** A scheduled or retry job to the tail of its queue now, unchanged. */
  runNow(jid: string): Promise<JobInfo>;
  /**
   * Cancels a job: a queued, scheduled or retry one (or one parked by flow control) is taken out
   * and recorded cancelled; a running one (or one a tick fetched and has not started) ends
   * cancelled, its handler's `ctx.signal` aborted with TickqCancelled (resolves once its tick heard).
   * Throws TickqError CONFLICT for a finished job, NOT_FOUND for an unknown jid.
   */
  cancel(jid: string): Promise<CancelResult>;
  /**
   * Cancels an ordered id (`enqueueOrdered`; it has no jid): a waiting id is taken out with every
   * payload and recorded cancelled; a running one (or one a tick fetched and has not started) ends
   * cancelled, its handler's `ctx.signal` aborted with TickqCancelled, and the payloads waiting
   * behind that run are cancelled with it (resolves once its tick heard). Payloads enqueued after
   * it returns run as the id's next run. Throws TickqError NOT_FOUND when the id has nothing
   * waiting or running.
   */
  cancelOrdered(name: string, id: string): Promise<OrderedCancelResult>;
  /** Where the job stands, with its result once it succeeded or its error once it failed for good (src/results/). */
  result(jid: string): Promise<JobResult>;
}

/** A queue as `tq.queues.list()` reports it. */
export interface QueueInfo {
  /** The queue's name. */
  name: string;
  /** Jobs waiting in it. */
  size: number;
  /** True while fetch skips it (`tq.queues.pause`). */
  paused: boolean;
  /** When a tick last served it (epoch ms); null if none ever did. */
  lastServedAt: number | null;
  /** How long (ms) the job that runs next has waited since it was enqueued (queue latency); 0 when empty. */
  latencyMs: number;
}

/** A tick in the registry (tq.ticks()). */
export interface TickInfo {
  /** The tick's id. */
  id: string;
  /** When it began (epoch ms, Redis' clock). */
  startedAt: number;
  /** The lease it took, in ms (a little over its budget; extended while it runs). */
  leaseMs: number;
  /** What is left of its lease; null when the lease is gone (the tick died: its jobs wait for the resurrector). */
  leaseLeftMs: number | null;
  /** Jobs it fetched and has not acked yet. */
  inflight: number;
  /** The queues it serves. */
  queues: string[];
  /** Redis' clock when this was read (epoch ms). */
  seenAt: number;
}

/** One of the last ticks (`tq.ticks.recent()`), as its finish call recorded it: what it did, in counts. */
export interface RecentTick {
  /** The tick's id. */
  id: string;
  /** When it finished (epoch ms, Redis' clock). */
  finishedAt: number;
  /** How long it ran, ms (up to its last call). */
  durationMs: number;
  /** Its non-zero counts, as its TickReport had them at its last call: fetched, succeeded, failed, retried, dead, cancelled, expired, scheduled, recurring, resurrected, requeued, abandoned. */
  counts: Record<string, number>;
  /** It found its lease gone and stopped early. */
  leaseLost: boolean;
  /** It stopped with work left. */
  more: boolean;
}

/** `tq.queues`: list, pause and resume queues. */
export interface QueuesApi {
  /** Every queue, with its size and whether it is paused. */
  list(): Promise<QueueInfo[]>;
  /** Fetch skips the queue from now on; its jobs stay where they are. */
  pause(name: string): Promise<void>;
  /** Fetch serves the queue again. */
  resume(name: string): Promise<void>;
}
