// The options of createTickq, composed of the capabilities' own (composition
// layer: docs/internals/layout.md). A type of one capability lives in its
// folder (the job's in job/, the adapter's in redis/, enqueue's in client/, a
// tick's options in tick/options.ts, its report in tick/tick-report.ts); the
// ones the root entry exports from here are re-exported below.
//
// job       a unit of work: a name (Sidekiq's `class`) and JSON `args`
// queue     a Redis list `queue:NAME` of pending job strings
// tick      one bounded, stateless run: resurrect, schedule, fetch, execute, ack
// lease     the key `tick:ID`; the tick is alive while it exists
// inproc    `inproc:TICK:QUEUE`, the jobs a tick fetched and has not acked
// resurrect return the inproc jobs of a dead tick to the head of their queue
// ordered   jobs by id with merged payloads, run one at a time per id (src/ordered/types.ts)
// flow      unique jobs, per-key concurrency and rate limits (src/flow/types.ts)

import type { StructuredLogger } from "./telemetry/logger.js";
import type { TelemetryOptions } from "./telemetry/tracing.js";
import type { MetricsOptions } from "./metrics/settings.js";
import type { TickqListenerOptions } from "./tick/events.js";
import type { KickOptions } from "./kick/types.js";
import type { OrderedRegistry } from "./ordered/types.js";
import type { CronParser, Schedules } from "./recurring/types.js";
import type { KeepCompleted } from "./results/types.js";
import type { JobLogger } from "./job/context.js";
import type { JobRegistry } from "./job/definition.js";
import type { RedisAdapter } from "./redis/types.js";
import type { WorkflowInputs, WorkflowsOption } from "./workflows/types.js";
import type { QueueOrder } from "./tick/queue-order.js";
import type { DurabilityOptions } from "./tick/durability.js";
import type { SidekiqProcessOptions } from "./sidekiq/process.js";

export type { QueueOrder } from "./tick/queue-order.js";
export type { DurabilityOptions } from "./tick/durability.js";
export type { SidekiqProcessOptions } from "./sidekiq/process.js";
export type { TickReport } from "./tick/tick-report.js";

/** The options of `createTickq`: only `redis` and `jobs` are required. */
export interface TickqOptions<
  J extends JobRegistry = JobRegistry,
  O extends OrderedRegistry = OrderedRegistry,
  W extends WorkflowInputs = WorkflowInputs,
> {
  /** The Redis client, through an adapter: `ioredisAdapter`, `upstashAdapter` or `restAdapter`. */
  redis: RedisAdapter;
  /** The jobs this deployment can run: name → handler, or name → {@link JobDefinition}. */
  jobs: J;
  /** Ordered jobs by id: name → { perform(id, payloads, ctx), retry?, backoffMs? }. */
  ordered?: O;
  /** Durable workflows: name → { run(input, step), retry?, backoff?, onFailure? } (`tq.workflows`). */
  workflows?: WorkflowsOption<W>;
  /** How long completed, failed and cancelled workflow runs are kept; default 7 days. */
  workflowRetentionMs?: number;
  /**
   * How long `tq.workflows.sendEvent` keeps each event for waits that park after it (of runs started
   * before it), and remembers its `id`; default 1 hour. 0 keeps none: a wait takes only events sent
   * while it waits.
   */
  eventRetentionMs?: number;
  /** Key prefix; default "tickq:". "" gives Sidekiq's own key names. */
  prefix?: string;
  /**
   * Key spaces to spread the jobs over, each under its own Redis Cluster hash tag
   * (`${prefix}{tag}:`), so a cluster's masters share the work (docs/operate/cluster.md); default 1:
   * one key space under `prefix`, today's layout. With more than 1 the prefix must have no hash tag.
   * `"auto"`: on a cluster client, the count stored for the prefix, else the smallest multiple of the
   * cluster's masters that spreads evenly over them, found at the first call and stored; on one
   * Redis, 1.
   */
  partitions?: number | "auto";
  /**
   * Queues a tick serves; default ["default"]. Listed, they also bound enqueue: a job sent to a queue
   * that neither this list nor any declared job names is refused (TickqError UNKNOWN_QUEUE).
   */
  queues?: QueueOrder;
  /**
   * Enqueue accepts any queue even though `queues` is listed: for a producer that enqueues jobs other
   * deployments serve. Default false.
   */
  allowUndeclaredQueues?: boolean;
  /** Retries when a job says `retry: true`; default 25. */
  maxRetries?: number;
  /** Resurrections before a job is declared poison and sent to the dead set; default 3. */
  maxResurrections?: number;
  /** Dead set cap; default 10,000 jobs. */
  deadMaxJobs?: number;
  /** Dead set cap: how long a dead job is kept, in ms; default 180 days. */
  deadMaxAgeMs?: number;
  /** @deprecated Dead set cap in seconds: use `deadMaxAgeMs`; removed in the next release. */
  deadMaxAgeSeconds?: number;
  /** A Redis call that takes longer than this rejects; default 10,000 ms. */
  redisTimeoutMs?: number;
  /**
   * How long enqueue remembers a jid the caller chose (`enqueue(…, { jid })`),
   * counted from the push that stored it; default 24 h. Every client of a
   * prefix sees the jids any other pushed, whatever its own window.
   */
  idWindowMs?: number;
  /** How long enqueue remembers each call, so a resent call pushes nothing twice; default 10 min. */
  replayWindowMs?: number;
  /** Where handlers' ctx.log and tickq's own warnings go; default console. */
  logger?: JobLogger;
  /**
   * A pino-shaped JSON logger (`info(fields, message)`), used instead of `logger`:
   * the failure line, warnings and ctx.log lines carry jid, name, queue and attempt as fields.
   */
  structuredLogger?: StructuredLogger;
  /** OpenTelemetry traces: a producer span per enqueue, a consumer span per run, a span per tick ({@link TelemetryOptions}). */
  telemetry?: TelemetryOptions;
  /** Listeners called after the ack of each outcome: `{ succeeded, failed, dead }` (also `tq.on`). */
  on?: TickqListenerOptions;
  /**
   * Frames of a failure's stack kept in `error_backtrace` when the job sets no
   * `backtrace` of its own (Sidekiq's option); default 20 (0 with prefix "",
   * as Sidekiq keeps none unless asked); 0 keeps none.
   */
  backtraceLines?: number;
  /** Last ctx.log lines of a failed run kept in the job as `tickq_log`; default 20, 0 keeps none. */
  logLines?: number;
  /** Recurring jobs: name → { cron, timezone? } or { every } with job, args, queue, missed: {@link ScheduleSpec}. */
  schedules?: Schedules<keyof J & string>;
  /**
   * Parses the `cron` schedules: `cron` from "tickq/cron" (croner). Default: croner with createTickq from "tickq";
   * none with tickqWorker / tickqVercel (a cron schedule without it is a BAD_OPTIONS), which keeps croner out of their bundles.
   */
  cron?: CronParser;
  /**
   * Register each tick as a Sidekiq process (`processes`, its heartbeat hash,
   * the hash of its running jobs) so Sidekiq's Web and API show live ticks.
   * Default: on when `prefix` is "" (Sidekiq's own keys), off otherwise; set
   * it for a prefix that is a redis-namespace of a Sidekiq app.
   */
  sidekiqProcesses?: boolean | SidekiqProcessOptions;
  /**
   * Largest job accepted, in bytes of its stored JSON (an ordered job: of
   * its payload's JSON); a larger one is refused with JOB_TOO_LARGE, nothing
   * written. Default 1 MiB (1,048,576), a tenth of Upstash's 10 MB request limit.
   */
  maxJobBytes?: number;
  /**
   * Replicas that must hold every write before enqueue, a tick's calls and
   * the jobs API return (Redis WAIT); fewer within `timeoutMs` is a
   * NOT_REPLICATED error, which a caller retries (a tick retries its own
   * calls). Needs an adapter that can WAIT (ioredis). Default: off.
   */
  durability?: DurabilityOptions;
  /** How ticks kicked by `enqueue(…, { kick: true })` run: max at once, budget, tick options: {@link KickOptions}. */
  kick?: KickOptions;
  /**
   * Succeeded jobs kept, with their results, for `tq.jobs.list("succeeded")`,
   * `find` and `result`: the newest `count`, none older than `ageMs` (default
   * 24 h). Default 0: none (docs/guides/results.md says why and what each costs).
   */
  keepCompleted?: KeepCompleted | 0;
  /** Largest result kept, in bytes of its JSON; a larger one is kept as a note, the job still succeeds. Default 65,536. */
  maxResultBytes?: number;
  /**
   * Metrics kept in Redis per minute (runs, failures, run times and waits, docs/operate/metrics.md):
   * `{ retentionMs }` (default 72 hours); `false` keeps none and adds nothing to a tick's calls. Default: on.
   */
  metrics?: MetricsOptions | false;
}
