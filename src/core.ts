// The tickq factory without a cron parser: what the edge entries (Worker,
// Vercel, through src/http/edge.ts) build on, so croner (~10 KB gzipped)
// stays out of their bundles unless they are given `cron`. "tickq"
// (index.ts) is this with croner by default. What those entries reach
// (src/http/app.ts, routes/, dashboard/) takes its values from here and
// errors.js, not index.ts: in the package's build (scripts/build.mjs, code
// splitting), a module two entries reach lands in a shared chunk, and
// index.ts there would put croner in tickq/cloudflare's imports
// (test/integration/package/worker-bundle-size.test.ts checks both the example Worker and dist).
import { jobsApi, queuesApi } from "./admin/index.js";
import { metricsApi } from "./metrics/index.js";
import type { MetricsApi } from "./metrics/types.js";
import { listTicks } from "./admin/ticks.js";
import type { JobsApi, QueuesApi, TickInfo } from "./admin/types.js";
import { enqueueJobs } from "./client/enqueue.js";
import { TickqError } from "./errors.js";
import type { TickqEventName, TickqListener } from "./tick/events.js";
import { readHistory, type DayStats } from "./client/history.js";
import { kickIfAsked, kickSettings } from "./kick/kick.js";
import { reserveTicks, startTick } from "./kick/parallel.js";
import type { KickScope } from "./kick/types.js";
import { enqueueOrderedJobs } from "./ordered/enqueue.js";
import type { OrderedBulkJob, OrderedJob, OrderedRegistry, PayloadOf } from "./ordered/types.js";
import { createRuntime } from "./tick/runtime.js";
import { checkPartitionCount } from "./partitions/layout.js";
import { createPartitioned, type CoreFactory } from "./partitions/facade.js";
import { createAutoPartitioned } from "./partitions/auto.js";
import { readStats } from "./client/stats.js";
import { checkWaitMs, waitForResult } from "./results/await.js";
import { AWAIT_FIELD } from "./results/record.js";
import type { ResultOf, WaitOptions } from "./results/types.js";
import { runtimes } from "./recurring/internal.js";
import { listRecurring } from "./recurring/list.js";
import type { ScheduleInfo } from "./recurring/types.js";
import { workflowsApi } from "./workflows/client.js";
import type { WorkflowInputs, WorkflowsApi } from "./workflows/types.js";
import type {
  ArgsOf,
  BulkJobOf,
  EnqueueOptions,
  JobRegistry,
  Middleware,
  Stats,
  TickOptions,
  TickqOptions,
  TickReport,
} from "./types.js";

/** `tq.stats()`: counters, sizes and warnings; `tq.stats.history(days)`: processed and failed per day. */
export interface StatsReader {
  (): Promise<Stats>;
  /** The last `days` UTC days (default 30, at most 1,825), oldest first, today last. */
  history(days?: number): Promise<DayStats[]>;
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
  /** The recurring jobs declared here or held in Redis: spec, next run, last run, last jid. */
  schedules(): Promise<ScheduleInfo[]>;
  /** The ticks in the registry, oldest first, with what is left of each lease and the jobs each holds. */
  ticks(): Promise<TickInfo[]>;
  /** Adds middleware around every execution, outermost first. */
  use(middleware: Middleware): Tickq<J, O, W>;
  /** The key prefix in use (the `prefix` option). */
  readonly prefix: string;
  /** The number of partitions (the `partitions` option; 1: one key space under `prefix`; with "auto" on a cluster, 0 until the first call found it). */
  readonly partitions: number;
}

/**
 * createTickq without its default cron parser: a cron schedule needs `options.cron`.
 * @example
 * import { cron } from "tickq/cron";
 * const tq = createTickqCore({ redis, jobs, cron, schedules: { nightly: { cron: "0 3 * * *", job: "report" } } });
 */
export function createTickqCore<
  J extends JobRegistry,
  O extends OrderedRegistry = Record<never, never>,
  W extends WorkflowInputs = Record<never, never>,
>(options: TickqOptions<J, O, W>): Tickq<J, O, W> {
  if (options?.partitions === "auto") {
    // One Redis keeps today's layout and cost; a cluster's count is found at the first call.
    if (options.redis?.cluster === true) return createAutoPartitioned(options, createTickqCore as CoreFactory);
    return createTickqCore({ ...options, partitions: 1 });
  }
  const count = options?.partitions === undefined ? 1 : checkPartitionCount(options.partitions);
  if (count > 1) return createPartitioned(options, count, createTickqCore as CoreFactory);
  const runtime = createRuntime(options);
  const kicks = kickSettings(options.kick);
  // One of each for every scope: they hold no per-scope state.
  const stats = Object.assign(() => readStats(runtime), { history: (days?: number) => readHistory(runtime, days) });
  const jobs = jobsApi(runtime);
  const queues = queuesApi(runtime);
  const workflows = workflowsApi(runtime) as WorkflowsApi<W>;
  const metrics = metricsApi(runtime);
  const build = (scope: KickScope): Tickq<J, O, W> => {
    const tickq: Tickq<J, O, W> = {
      async enqueue(name, args, opts = {}) {
        const [jid] = await enqueueJobs(runtime, [{ ...opts, name, args }]);
        kickIfAsked(runtime, kicks, scope, [opts]);
        return jid!;
      },
      async enqueueAndWait(name, args, opts = {}) {
        const { timeoutMs, ...enqueueOptions } = opts;
        const waitMs = checkWaitMs(timeoutMs);
        const [jid] = await enqueueJobs(runtime, [{ ...enqueueOptions, name, args }], { [AWAIT_FIELD]: 1 });
        kickIfAsked(runtime, kicks, scope, [{ ...enqueueOptions, kick: enqueueOptions.kick ?? true }]);
        return (await waitForResult(runtime, jid!, waitMs)) as ResultOf<J[typeof name]>;
      },
      async enqueueBulk(jobs) {
        const jids = await enqueueJobs(runtime, jobs);
        kickIfAsked(runtime, kicks, scope, jobs);
        return jids;
      },
      enqueueOrdered: (name, job) => enqueueOrderedJobs(runtime, [{ ...job, name }]),
      enqueueOrderedBulk: (jobs) => enqueueOrderedJobs(runtime, jobs),
      workflows,
      tick: (opts) => startTick(runtime, opts),
      reserveTicks: async (count, maxParallel) => (await reserveTicks(runtime, count, maxParallel)).ids,
      scope: (more) => build({ ...scope, ...more }),
      stats,
      jobs,
      queues,
      metrics,
      on(event, listener) {
        const set = runtime.listeners[event] as Set<TickqListener<typeof event>> | undefined;
        if (!set)
          throw new TickqError(
            "BAD_ARGS",
            `on: unknown event ${JSON.stringify(event)}; events are succeeded, failed, dead, expired, workflow.completed, workflow.failed`,
          );
        set.add(listener);
        return () => void set.delete(listener);
      },
      schedules: () => listRecurring(runtime),
      ticks: () => listTicks(runtime),
      use(middleware) {
        runtime.middleware.push(middleware);
        return tickq;
      },
      prefix: runtime.prefix,
      partitions: 1,
    };
    runtimes.set(tickq, runtime);
    return tickq;
  };
  return build({});
}
