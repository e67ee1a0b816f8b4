// The terms of tickq, defined once.
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
import type { UnstartableJobs } from "./tick/unstartable-warnings.js";
import type { ConcurrencyLimit, FlowStats, KeyArgs, RateLimit, UniqueMode } from "./flow/types.js";
import type { KickOptions } from "./kick/types.js";
import type { OrderedRegistry, OrderedStats } from "./ordered/types.js";
import type { CronParser, Schedules } from "./recurring/types.js";
import type { KeepCompleted } from "./results/types.js";
import type { Debounce } from "./debounce/types.js";
import type { StandardSchemaV1 } from "./client/standard-schema.js";
import type {
  Duration,
  TickWorkflowReport,
  WorkflowInputs,
  WorkflowsOption,
  WorkflowStats,
} from "./workflows/types.js";

/** A Redis reply as both adapters return it: no parsing, no Buffers. */
export type RedisReply = null | number | string | RedisReply[];

/** A Lua script tickq runs (its SHA-1 is computed when first run). */
export interface LuaScript {
  /** The entry script's name, its file name without `.lua`. */
  readonly name: string;
  /** The Lua source sent to Redis. */
  readonly text: string;
  /** The .lua file and line of a line of `text` ("src/lua/lib/tick/ack-jobs.lua:12"), for Redis' `user_script:N` errors. */
  sourceOf?(line: number): string | undefined;
}

/**
 * What tickq needs of a Redis client: two calls. Each call is one round trip.
 * An adapter must reject with an error whose message contains "NOSCRIPT"
 * when EVALSHA does not know the script.
 */
export interface RedisAdapter {
  /** EVALSHA: runs a script Redis already holds; rejects with "NOSCRIPT" in the message when it holds none. */
  evalsha(sha: string, keys: string[], args: string[]): Promise<RedisReply>;
  /** EVAL: sends the script's text and runs it (Redis caches it for later EVALSHA calls). */
  eval(script: string, keys: string[], args: string[]): Promise<RedisReply>;
  /**
   * Redis WAIT on the connection the last calls went through: how many
   * replicas hold them after at most `timeoutMs`. Only `durability` uses it.
   * `keys` are those of the call whose writes to confirm: a cluster adapter
   * sends WAIT to the master serving their slot, the connection that carried
   * the call (WAIT has no key, so a cluster client would pick any node).
   */
  wait?(replicas: number, timeoutMs: number, keys?: string[]): Promise<number>;
  /**
   * True when the client talks to a Redis Cluster: tickq's scripts touch
   * keys they build from the prefix, so the prefix must hold a hash tag
   * (`{tickq}:`) that puts every key in one slot; createTickq refuses one
   * without.
   */
  readonly cluster?: boolean;
}

/** A job as stored in Redis: Sidekiq's job JSON, plus any extra fields. */
export interface JobPayload {
  /** The job's name (Sidekiq's worker class). */
  class: string;
  /** The arguments the handler receives, as enqueued. */
  args: unknown[];
  /** The job's id. */
  jid: string;
  /** The queue it runs from. */
  queue: string;
  /** true: up to `maxRetries` retries; a number: that many; false: none. */
  retry: boolean | number;
  /** When it was first enqueued (epoch seconds, Redis' clock, as Sidekiq writes it). */
  created_at?: number;
  /** When it was last pushed to its queue (epoch seconds). */
  enqueued_at?: number;
  /** The last failure's message. */
  error_message?: string;
  /** The last failure's error name (its class). */
  error_class?: string;
  /** When it first failed (epoch seconds). */
  failed_at?: number;
  /** When it last failed again, on a retry (epoch seconds). */
  retried_at?: number;
  /** Retries used so far: 0 after the first failure (Sidekiq's count); absent before any. */
  retry_count?: number;
  /** The failure's stack frames: zlib-deflated JSON, base64'd (Sidekiq 7), or an array (Sidekiq 6). */
  error_backtrace?: string | string[];
  /** The failed run's last ctx.log lines (capped: `logLines`). */
  tickq_log?: string[];
  /** Its priority within its queue (enqueue's `priority`), when not 0. */
  tickq_priority?: number;
  /** Its group for fair shares (enqueue's `group`, or the job's `group(args)`). */
  tickq_group?: string;
  [field: string]: unknown;
}

/** A console-like logger: `ctx.log` in a handler, and the `logger` option. */
export interface JobLogger {
  /** Logs a line at info level. */
  info(message: string, ...rest: unknown[]): void;
  /** Logs a line at warn level. */
  warn(message: string, ...rest: unknown[]): void;
  /** Logs a line at error level. */
  error(message: string, ...rest: unknown[]): void;
}

/** What a job's handler gets beside its args. */
export interface JobContext {
  /** The job's id. */
  jid: string;
  /** The queue it was fetched from. */
  queue: string;
  /** 1 on the first run, 2 on the first retry, and so on. */
  attempt: number;
  /** Aborts at the tick's deadline (or if the tick loses its lease). */
  signal: AbortSignal;
  /** The `logger`, with the job's name and jid on each line; a failed run's last lines are kept in the job (`logLines`). */
  log: JobLogger;
  /** The whole job as stored in Redis. */
  payload: JobPayload;
  /**
   * Reports how far the job is (a number or small JSON, ≤ 4 KiB): buffered, and sent with the tick's
   * next call to Redis (a step, or its lease's extend), so `tq.jobs.result` and `find` show the last value
   * within about a third of the lease. Never a round trip of its own.
   */
  progress(value: unknown): void;
  /**
   * A flow job (unique, concurrency or rate limit): a number that grows with
   * every start, for downstream writes to refuse a stale run's. Undefined otherwise.
   */
  fence?: number;
}

/** A job's code: called with the enqueued args; a throw or a rejection is a failure, retried with backoff. */
export type JobHandler<A extends unknown[] = unknown[]> = (args: A, ctx: JobContext) => unknown;

/** A job with options: its handler in `perform`, and its queue, retries, backoff, timeout and flow limits. */
export interface JobDefinition<A extends unknown[] = unknown[]> {
  /** The job's code. */
  perform: JobHandler<A>;
  /** Queue used when enqueue does not name one. Default "default". */
  queue?: string;
  /** false: no retry (straight to the dead set); a number: that many retries. Default true: `maxRetries`. */
  retry?: boolean | number;
  /**
   * Milliseconds (or a duration string: "30s", "5m") to wait before retry number `count` (0-based);
   * default Sidekiq's (`defaultBackoffMs`).
   */
  backoffMs?: (count: number, error: unknown) => Duration;
  /** @deprecated Seconds to wait before retry number `count`: use `backoffMs`; removed in the next release. */
  backoff?: (count: number, error: unknown) => number;
  /**
   * Longest a run may take. A tick starts the job only with this much of its
   * budget left (else it stays queued for a tick with room); a run past it
   * sees `ctx.signal` abort and fails with TickqTimeout (retried with backoff).
   */
  timeoutMs?: number;
  /** The key of `enqueue(…, { unique })` (flow control); default the job name and the canonical JSON of its args. */
  uniqueKey?(args: KeyArgs<A>): string;
  /** At most `limit` runs at once per `key(args)`, across every tick; a job over it waits, parked, and is not lost. */
  concurrency?: ConcurrencyLimit<A>;
  /**
   * Default priority of its jobs (enqueue's `priority` overrides it): an integer from -1,000 to 1,000;
   * within a queue a higher priority starts first. Default 0.
   */
  priority?: number;
  /**
   * Fair shares: the group of a job (a tenant, a customer), a non-empty string without whitespace.
   * A queue's jobs are taken round-robin across their groups, so one group's backlog never holds
   * another's jobs back by more than about one batch. Enqueue's `group` overrides it.
   */
  group?(args: KeyArgs<A>): string;
  /** At most `limit` starts per `key(args)` in any `periodMs`; a job over it is deferred (no retry used). */
  rateLimit?: RateLimit<A>;
  /**
   * A Standard Schema validator of the args array (valibot, zod, arktype…), checked at every
   * enqueue (code, HTTP, CLI, schedules): a failure is a BAD_ARGS TickqError naming the path,
   * nothing enqueued. Its output is what the handler receives. `defineJob` infers the handler's
   * args from it.
   */
  schema?: StandardSchemaV1;
  /**
   * Trailing debounce (src/debounce/): the job of `key(args)` runs `delayMs` after the last
   * enqueue of that key, with the last args, and no later than `maxDelayMs` after the first;
   * every enqueue of an open window returns the one jid that will run.
   */
  debounce?: Debounce<A>;
}

/** A job definition whose handler takes what its schema outputs (what `defineJob` returns). */
export type SchemaJobDefinition<S extends StandardSchemaV1> = Omit<
  JobDefinition<SchemaArgs<StandardSchemaV1.InferOutput<S>>>,
  "schema"
> & {
  /** The validator its args are checked by. */
  schema: S;
};

// A schema of something other than an array can never pass enqueue's own check: its args are unknown[].
type SchemaArgs<T> = T extends unknown[] ? T : unknown[];

// Handlers are contravariant in their args: `never` lets a handler that
// declares its own tuple (`(args: [string]) => …`) be registered, and
// ArgsOf recovers that tuple for `enqueue`.
/** The `jobs` option: job name → its handler, or a {@link JobDefinition}. */
export type JobRegistry = Record<string, JobHandler<never> | JobDefinition<never>>;

/** The args tuple a registered job declares. */
export type ArgsOf<T> = T extends {
  /** A job with a schema: its args are what the schema accepts. */
  schema: infer S extends StandardSchemaV1;
}
  ? SchemaArgs<StandardSchemaV1.InferInput<S>>
  : OrAnyArgs<
      T extends JobDefinition<infer A> ? A : T extends (args: infer A, ctx: JobContext) => unknown ? A : unknown[]
    >;
// A handler that declares no args parameter infers `never`: any array fits.
type OrAnyArgs<A> = [A] extends [never] ? unknown[] : A;

/** A job as handed to middleware. */
export interface RunningJob {
  /** The job's name. */
  name: string;
  /** Its args. */
  args: unknown[];
  /** The whole job as stored in Redis. */
  payload: JobPayload;
}

/** Code around every execution (`tq.use`): call `next()` to run the job, and return or rethrow what it settles to. */
export type Middleware = (job: RunningJob, ctx: JobContext, next: () => Promise<unknown>) => Promise<unknown>;

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

/** Options of `tq.enqueue` (and of each job of `tq.enqueueBulk`). */
export interface EnqueueOptions {
  /**
   * Your own id for the job: enqueueing the same jid again, from any client
   * of the prefix, within the `idWindowMs` of the client that pushed it,
   * pushes nothing and returns that jid. Default: a new one.
   */
  jid?: string;
  /** The queue to push to; default the job's `queue`, else "default". */
  queue?: string;
  /** Run after this many milliseconds. */
  delayMs?: number;
  /** Run at this time. */
  at?: Date;
  /** Retries for this job: true (`maxRetries`), a number, or false; default the job's `retry`, else true. */
  retry?: boolean | number;
  /**
   * Start a tick right away, in the background (the scope's waitUntil, or
   * in-process), so the job starts within milliseconds instead of at the next
   * cron. At most `kick.max` kicked ticks run at once. Default: the scope's.
   */
  kick?: boolean;
  /** Unique execution by the job's `uniqueKey` ({@link UniqueMode}): while-executing, until-executed or coalesce. */
  unique?: UniqueMode;
  /**
   * Never start the job after this many milliseconds from now (Redis' clock):
   * a job still waiting then (queued, delayed, paused, waiting for a retry) is
   * recorded as expired when a tick fetches it, and never runs. Default: no expiry.
   */
  expiresInMs?: number;
  /**
   * An integer from -1,000 to 1,000: within its queue a job of higher priority starts first, equal
   * priorities in the order enqueued. Default the job's `priority`, else 0.
   */
  priority?: number;
  /** Its group for fair shares (a tenant's id): default the job's `group(args)`, else none. */
  group?: string;
}

/** One job of `tq.enqueueBulk`, unchecked: its name, its args and the options of `enqueue`. */
export interface BulkJob<Name extends string = string> extends EnqueueOptions {
  /** The job's name, a key of `jobs`. */
  name: Name;
  /** Its args. */
  args: unknown[];
}

/** One job of enqueueBulk: its args checked against its handler, as enqueue checks them. */
export type BulkJobOf<J extends JobRegistry> = {
  [K in keyof J & string]: EnqueueOptions & {
    /** The job's name, a key of `jobs`. */
    name: K;
    /** Its args, as its handler declares them. */
    args: ArgsOf<J[K]> extends unknown[] ? ArgsOf<J[K]> : unknown[];
  };
}[keyof J & string];

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
  /** Handlers run at once; default 10. */
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
