// What `createTickq` returns, as a type of its own: partitions/ builds a
// Tickq over several cores, and core.ts builds one; both stand on this file
// rather than on each other.
import type { AuthGuards } from "./admin/guards.js";
import type { JobsApi, QueuesApi, RecentTick, TickInfo } from "./admin/types.js";
import type { DayStats } from "./stats/history.js";
import type { KickScope } from "./kick/types.js";
import type { MetricsApi } from "./metrics/types.js";
import type { OrderedBulkJob, OrderedJob, OrderedRegistry, PayloadOf } from "./ordered/types.js";
import type { SchedulesApi } from "./recurring/types.js";
import type { ResultOf, WaitOptions } from "./results/types.js";
import type { TickqEventName, TickqListener } from "./tick/events.js";
import type { ArgsOf, JobRegistry } from "./job/definition.js";
import type { BulkJobOf, EnqueueOptions } from "./job/enqueue-options.js";
import type { Middleware } from "./job/context.js";
import type { Stats } from "./stats/types.js";
import type { TickReport } from "./types.js";
import type { TickOptions } from "./tick/options.js";
import type { WorkflowInputs, WorkflowsApi } from "./workflows/types.js";

/** `tq.stats()`: counters, sizes and warnings; `tq.stats.history(days)`: processed and failed per day. */
export interface StatsReader {
  (): Promise<Stats>;
  /** The last `days` UTC days (default 30, at most 1,825), oldest first, today last. */
  history(days?: number): Promise<DayStats[]>;
}

/** `tq.ticks()`: the live ticks; `tq.ticks.recent()`: the last 100 that finished, newest first, with what each did. */
export interface TicksReader {
  (): Promise<TickInfo[]>;
  /** The last ticks that finished (at most 100), newest first, each with its counts. */
  recent(): Promise<RecentTick[]>;
}

/** What `createTickq` returns: enqueue, tick, and read or manage jobs, queues, ticks and schedules. */
export interface Tickq<
  J extends JobRegistry,
  O extends OrderedRegistry = OrderedRegistry,
  W extends WorkflowInputs = WorkflowInputs,
> {
  /** Pushes one job (or schedules it with delayMs / at); returns its jid. */
  enqueue<K extends keyof J & string>(name: K, args: ArgsOf<J[K]>, options?: EnqueueOptions): Promise<string>;
  /**
   * Enqueues the job, kicks a tick (unless `kick: false`), and waits for it to end: returns its handler's value;
   * throws JobFailedError when it ends failed or dead, WaitTimeoutError past `timeoutMs` (default 30 s; the job goes on).
   */
  enqueueAndWait<K extends keyof J & string>(
    name: K,
    args: ArgsOf<J[K]>,
    options?: WaitOptions,
  ): Promise<ResultOf<J[K]>>;
  /** Pushes many jobs in a few round trips; returns their jids in order. Each job's args are checked against its handler. */
  enqueueBulk<B extends BulkJobOf<J>>(jobs: B[]): Promise<string[]>;
  /** Adds a payload to an ordered id: merged with the id's waiting payloads, run once with them (ordered jobs). */
  enqueueOrdered<K extends keyof O & string>(name: K, job: OrderedJob<PayloadOf<O[K]>>): Promise<void>;
  /** Adds many payloads, to any ordered ids, in a few round trips; checks every one before writing any. */
  enqueueOrderedBulk(jobs: OrderedBulkJob<keyof O & string>[]): Promise<void>;
  /** Durable workflows: start runs, send events, read runs (`workflows` option). */
  workflows: WorkflowsApi<W>;
  /** Runs one bounded tick: resurrect, schedule, fetch, execute, ack. */
  tick(options?: TickOptions): Promise<TickReport>;
  /**
   * Reserves up to `count` tick slots while fewer than `maxParallel` ticks
   * are live; returns the granted ids, each for one tick({ tickId, maxParallel }).
   */
  reserveTicks(count: number, maxParallel: number): Promise<string[]>;
  /** The same tickq, whose kicked ticks run in `scope.waitUntil` (a request's ctx.waitUntil). */
  scope(scope: KickScope): Tickq<J, O, W>;
  /** Counters, sizes and warnings (`tq.stats()`), and processed and failed per day (`tq.stats.history(days)`). */
  stats: StatsReader;
  /** Find, list, retry, delete and run jobs by jid or by state. */
  jobs: JobsApi;
  /** List, pause and resume queues. */
  queues: QueuesApi;
  /** Metrics kept in Redis: runs, failures, durations and waits per minute, queue latency (docs/operate/metrics.md). */
  metrics: MetricsApi;
  /** Adds a listener called after the ack of each outcome; returns a function that removes it. */
  on<E extends TickqEventName>(event: E, listener: TickqListener<E>): () => void;
  /** The recurring jobs declared here or held in Redis: spec, next runs, last run, last jid, paused; pause, resume or run one now. */
  schedules: SchedulesApi;
  /**
   * The ticks in the registry, oldest first, with what is left of each lease and the jobs each holds;
   * `tq.ticks.recent()`: the last 100 that finished, with what each did.
   */
  ticks: TicksReader;
  /** Adds middleware around every execution, outermost first. */
  use(middleware: Middleware): Tickq<J, O, W>;
  /** The login throttle and ended dashboard sessions, kept in this tickq's Redis: what `tickq/app` and the dashboard use. */
  readonly guards: AuthGuards;
  /** The key prefix in use (the `prefix` option). */
  readonly prefix: string;
  /** The number of partitions (the `partitions` option; 1: one key space under `prefix`; with "auto" on a cluster, 0 until the first call found it). */
  readonly partitions: number;
}
