// The options of createTickq and what a tick and stats() report: the terms
// every capability reads. A type of one capability lives in its folder (the
// job's in job/, the adapter's in redis/, enqueue's in client/, a tick's
// options in tick/options.ts).
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
import type { JobLogger, Middleware } from "./job/context.js";
import type { JobRegistry } from "./job/definition.js";
import type { RedisAdapter } from "./redis/types.js";
import type { TickWorkflowReport, WorkflowInputs, WorkflowsOption } from "./workflows/types.js";

/** Strict order (`["critical", "default"]`) or Sidekiq weights (`[["critical", 3], ["default", 1]]`). */
export type QueueOrder = string[] | [string, number][];

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

/** The `durability` option: how many replicas must hold each write (Redis WAIT). */
export interface DurabilityOptions {
  /** Replicas that must acknowledge each write; at least 1. */
  replicas: number;
  /** How long to wait for them, in ms; default 1,000. */
  timeoutMs?: number;
}

/** How ticks show up as Sidekiq processes (the `sidekiqProcesses` option). */
export interface SidekiqProcessOptions {
  /** The hostname Sidekiq Web shows, and the first part of each tick's identity; default "tickq". */
  hostname?: string;
  /** Sidekiq's process tag; default "". */
  tag?: string;
  /** Labels beside "tickq", which is always one. */
  labels?: string[];
}

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
  /** Handlers still running after the grace period: left for resurrection. */
  abandoned: number;
  /** Dead-set entries evicted by the size or age cap. */
  deadEvicted: number;
  /** True when the tick stopped with work left (a full last batch, or housekeeping left). */
  more: boolean;
  /** True when the tick found its lease gone and stopped early. */
  leaseLost: boolean;
  /** Redis calls the tick made. */
  roundTrips: number;
  /** Wall-clock time the tick took. */
  durationMs: number;
  /** True when the tick did not start: maxParallel ticks were already live. */
  skipped?: boolean;
  /** Workflow work: steps committed, runs completed, failed, parked (absent when the app declares no workflow). */
  workflows?: TickWorkflowReport;
}
