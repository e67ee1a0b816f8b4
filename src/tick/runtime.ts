// Everything a tick and the client share, resolved once from the options.
import { monotonicMs } from "./clock.js";
import { TickqError } from "../errors.js";
import { newListeners, type EventListeners } from "./events.js";
import { confirmReplicated, durabilityOf, type Durability } from "./durability.js";
import { DEFAULT_MAX_JOB_BYTES } from "../client/job-size.js";
import { checkKnownKeys, numberOption } from "../options.js";
import { checkJobDefinitions } from "../client/definitions.js";
import { acceptedQueues } from "./accepted-queues.js";
import { keysFor, type Keys } from "../keys.js";
import { checkTimeouts } from "./passes/timeout.js";
import { checkOrdered } from "../ordered/registry.js";
import type { OrderedRegistry } from "../ordered/types.js";
import { checkWorkflows } from "../workflows/registry.js";
import type { WorkflowRegistry } from "../workflows/types.js";
import { planQueues, type QueuePlan } from "./queue-order.js";
import { deadMaxAgeSeconds, warnSecondsForms } from "./seconds-options.js";
import { newScriptCache, runScript, type RoundTrips } from "../redis/adapter.js";
import { declareRecurring, type RecurringSet } from "../recurring/declare.js";
import { sidekiqProcessOf, type SidekiqProcess } from "../sidekiq/process.js";
import { resultSettings, type ResultSettings } from "../results/settings.js";
import type { ProgressBuffer } from "../results/progress.js";
import { CancelWatch } from "../cancel/watch.js";
import { logSink, textFace, type LogSink } from "../telemetry/logger.js";
import { Tracing } from "../telemetry/tracing.js";
import type { Capability } from "./capability.js";
import { metricsSettings, type MetricsSettings } from "../metrics/settings.js";
import type {
  JobDefinition,
  JobLogger,
  JobRegistry,
  LuaScript,
  Middleware,
  RedisAdapter,
  RedisReply,
  TickqOptions,
} from "../types.js";

export interface Runtime {
  redis: RedisAdapter;
  prefix: string;
  keys: Keys;
  jobs: JobRegistry;
  /** Ordered jobs by id (src/ordered/), and their names: what every tick serves. */
  ordered: OrderedRegistry;
  orderedNames: string[];
  /** Durable workflows (src/workflows/); empty: ticks send no workflow call. */
  workflows: WorkflowRegistry;
  /** How long ended workflow runs are kept, in ms. */
  workflowRetentionMs: number;
  plan: QueuePlan;
  /** The queues enqueue accepts; undefined: any (no `queues` listed, or allowUndeclaredQueues). */
  acceptedQueues: ReadonlySet<string> | undefined;
  maxRetries: number;
  maxResurrections: number;
  /** How long a caller-chosen jid is remembered by enqueue. */
  idWindowMs: number;
  /** How long an enqueue call's token is remembered, against resent calls. */
  replayWindowMs: number;
  deadMaxJobs: number;
  deadMaxAgeSeconds: number;
  redisTimeoutMs: number;
  logger: JobLogger;
  /** Every line, with fields when the `structuredLogger` option is set. */
  logs: LogSink;
  /** OpenTelemetry spans (src/telemetry/); undefined without the `telemetry` option. */
  tracing: Tracing | undefined;
  middleware: Middleware[];
  /** Listeners of job events (events.ts). */
  listeners: EventListeners;
  /** Frames of a failure's backtrace kept in a job that sets no `backtrace` of its own. */
  backtraceLines: number;
  /** Last ctx.log lines of a failed run kept in the job. */
  logLines: number;
  /** Redis' clock minus the monotonic clock (clock.ts), learnt from every script that reads TIME. */
  clockOffsetMs: number;
  /** Redis' maxmemory-policy, read once per process by the first tick (or stats). */
  evictionPolicy: string | undefined;
  /** The recurring jobs this deployment declares (src/recurring/). */
  recurring: RecurringSet;
  /** Ticks register as Sidekiq processes (src/sidekiq/process.ts); undefined: off. */
  sidekiq: SidekiqProcess | undefined;
  /** Some job has a timeoutMs: ticks check the budget left before starting one. */
  timeouts: boolean;
  /** Some job has a schema: enqueue checks args against it (src/client/schema-check.ts). */
  schemas: boolean;
  /** Largest job text (or ordered payload) enqueue accepts, in bytes. */
  maxJobBytes: number;
  /** Replicas every write waits for (src/tick/durability.ts); undefined: none. */
  durability: Durability | undefined;
  /** Succeeded jobs kept as history and the size of results kept (src/results/). */
  results: ResultSettings;
  /** Metrics kept in Redis (src/metrics/); undefined with `metrics: false`. */
  metrics: MetricsSettings | undefined;
  /** ctx.progress values not sent yet (src/results/progress.ts). */
  progress: ProgressBuffer;
  /** Cancels this process's ticks heard of (src/cancel/watch.ts). */
  cancels: CancelWatch;
  /** Set by src/partitions/ on each partition's core: its jids hash to it (src/partitions/jid.ts). */
  partition?: { index: number; count: number };
  /** What plugs into its ticks (tick/capability.ts), set by createTickq; none: plain jobs alone. */
  capabilities?: readonly Capability[];
  run(script: LuaScript, keys: string[], args: (string | number)[], trips: RoundTrips): Promise<RedisReply>;
}

const OPTION_KEYS: Readonly<Record<keyof TickqOptions, true>> = {
  redis: true,
  jobs: true,
  ordered: true,
  workflows: true,
  workflowRetentionMs: true,
  prefix: true,
  partitions: true,
  queues: true,
  allowUndeclaredQueues: true,
  maxRetries: true,
  maxResurrections: true,
  deadMaxJobs: true,
  deadMaxAgeSeconds: true,
  deadMaxAgeMs: true,
  redisTimeoutMs: true,
  idWindowMs: true,
  replayWindowMs: true,
  logger: true,
  on: true,
  backtraceLines: true,
  logLines: true,
  schedules: true,
  cron: true,
  sidekiqProcesses: true,
  maxJobBytes: true,
  durability: true,
  kick: true,
  keepCompleted: true,
  maxResultBytes: true,
  structuredLogger: true,
  telemetry: true,
  metrics: true,
};

export function createRuntime<J extends JobRegistry>(options: TickqOptions<J>): Runtime {
  if (!options || typeof options.redis?.evalsha !== "function") {
    throw new TickqError(
      "BAD_OPTIONS",
      "createTickq needs `redis`: an adapter such as ioredisAdapter(new Redis()) or upstashAdapter(redis)",
    );
  }
  // A raw ioredis client has evalsha too, but with another shape (and a
  // `cluster` command where an adapter has a boolean): refused here rather
  // than failing at the first call with a Redis error, or as a Cluster.
  if (typeof options.redis.cluster === "function") {
    throw new TickqError(
      "BAD_OPTIONS",
      "createTickq got a Redis client as `redis`, not an adapter: wrap it, as in ioredisAdapter(new Redis())",
    );
  }
  if (typeof options.jobs !== "object" || options.jobs === null) {
    throw new TickqError("BAD_OPTIONS", "createTickq needs `jobs`: an object of job name → handler");
  }
  checkKnownKeys(options, OPTION_KEYS, "createTickq");
  const schemas = checkJobDefinitions(options.jobs);
  const prefix = options.prefix ?? "tickq:";
  if (options.redis.cluster && hashTagOf(prefix) === undefined) {
    throw new TickqError(
      "BAD_OPTIONS",
      `prefix ${JSON.stringify(prefix)} has no hash tag, and the client is a Redis Cluster client: tickq's scripts need all its keys in one slot. ` +
        `Put a hash tag in the prefix, such as prefix: "{${prefix.replace(/[{}:]+$/g, "") || "tickq"}}:" (every key in one slot, one node), ` +
        `or spread the keys over the cluster with partitions: N (docs/operate/cluster.md)`,
    );
  }
  const ordered = checkOrdered(options.ordered, options.jobs);
  const scriptCache = newScriptCache();
  // Set once Redis answered as a Cluster to an adapter that did not say it is one: every later call is refused.
  let undeclaredCluster: TickqError | undefined;
  checkTelemetry(options);
  const logs = logSink(options.logger ?? console, options.structuredLogger);
  // Every line goes through the sink, which makes it printable (src/telemetry/logger.ts).
  const logger = textFace(logs);
  warnSecondsForms(options as TickqOptions, logger, options.structuredLogger ?? options.logger ?? console);
  const runtime: Runtime = {
    redis: options.redis,
    prefix,
    keys: keysFor(prefix),
    jobs: options.jobs,
    ordered,
    orderedNames: Object.keys(ordered),
    workflows: checkWorkflows(options.workflows as WorkflowRegistry | undefined),
    workflowRetentionMs: numberOption(options.workflowRetentionMs, 7 * 24 * 3600_000, "workflowRetentionMs", {
      min: 1_000,
      integer: true,
    }),
    plan: planQueues(options.queues ?? ["default"]),
    acceptedQueues: acceptedQueues(options.queues, options.jobs, options.allowUndeclaredQueues),
    maxRetries: numberOption(options.maxRetries, 25, "maxRetries", { min: 0, integer: true }),
    // 0 would send every job of a dead tick to the dead set unrun.
    maxResurrections: numberOption(options.maxResurrections, 3, "maxResurrections", { min: 1, integer: true }),
    idWindowMs: numberOption(options.idWindowMs, 24 * 3600_000, "idWindowMs", { min: 1_000, integer: true }),
    replayWindowMs: numberOption(options.replayWindowMs, 600_000, "replayWindowMs", { min: 1_000, integer: true }),
    deadMaxJobs: numberOption(options.deadMaxJobs, 10_000, "deadMaxJobs", { min: 1, integer: true }),
    deadMaxAgeSeconds: deadMaxAgeSeconds(options),
    redisTimeoutMs: numberOption(options.redisTimeoutMs, 10_000, "redisTimeoutMs", { min: 1 }),
    logger,
    logs,
    tracing: options.telemetry ? new Tracing(options.telemetry, (message) => logger.warn(message)) : undefined,
    middleware: [],
    listeners: newListeners(options.on),
    // Under Sidekiq's own key names, Sidekiq's rule: no backtrace unless the job asks for one.
    backtraceLines: numberOption(options.backtraceLines, prefix === "" ? 0 : 20, "backtraceLines", {
      min: 0,
      integer: true,
    }),
    logLines: numberOption(options.logLines, 20, "logLines", { min: 0, integer: true }),
    // Until Redis answers, the host's wall clock read once is the best guess.
    clockOffsetMs: Date.now() - monotonicMs(),
    evictionPolicy: undefined,
    recurring: declareRecurring(options.schedules, options.jobs, options.cron),
    sidekiq: sidekiqProcessOf(options.sidekiqProcesses, prefix),
    timeouts: checkTimeouts(options.jobs),
    schemas,
    maxJobBytes: numberOption(options.maxJobBytes, DEFAULT_MAX_JOB_BYTES, "maxJobBytes", { min: 1_024, integer: true }),
    durability: durabilityOf(options.durability, options.redis),
    results: resultSettings(options.keepCompleted, options.maxResultBytes),
    metrics: metricsSettings(options.metrics),
    progress: new Map(),
    cancels: new CancelWatch(),
    run: async (script, keys, args, trips) => {
      // A script that declares no key is sent to any node of a cluster.
      if (keys.length === 0)
        throw new TickqError(
          "BAD_STATE",
          `script ${script.name} was called with no key: a cluster client could not route it`,
        );
      if (undeclaredCluster) throw undeclaredCluster;
      let reply: RedisReply;
      try {
        reply = await runScript(
          runtime.redis,
          script,
          keys,
          [prefix, ...args],
          trips,
          runtime.redisTimeoutMs,
          scriptCache,
        );
      } catch (error) {
        undeclaredCluster = clusterRefusal(options.redis, prefix, error);
        throw undeclaredCluster ?? error;
      }
      if (runtime.durability) await confirmReplicated(runtime.redis, runtime.durability, script, trips, keys);
      return reply;
    },
  };
  return runtime;
}

function checkTelemetry(options: Pick<TickqOptions, "telemetry" | "structuredLogger">): void {
  if (options.telemetry !== undefined && typeof options.telemetry?.otel?.trace?.getTracer !== "function") {
    throw new TickqError(
      "BAD_OPTIONS",
      'telemetry.otel must be the OpenTelemetry API module: import * as otel from "@opentelemetry/api"',
    );
  }
  const structured = options.structuredLogger;
  if (
    structured !== undefined &&
    !["info", "warn", "error"].every(
      (level) => typeof (structured as unknown as Record<string, unknown>)?.[level] === "function",
    )
  ) {
    throw new TickqError(
      "BAD_OPTIONS",
      "structuredLogger needs info, warn and error methods taking (fields, message), as pino's",
    );
  }
}

export function definitionOf(runtime: Runtime, name: string): JobDefinition<never> | undefined {
  const entry = Object.hasOwn(runtime.jobs, name) ? runtime.jobs[name] : undefined;
  if (entry === undefined) return undefined;
  return typeof entry === "function" ? { perform: entry } : entry;
}

/** Redis' time now, from the offset last learnt: a step of the host's clock does not move it. */
export function redisNowMs(runtime: Runtime): number {
  return monotonicMs() + runtime.clockOffsetMs;
}

export function redisNowSec(runtime: Runtime): number {
  return redisNowMs(runtime) / 1000;
}

/** A reply carried Redis' time (ms). */
export function learnClock(runtime: Runtime, nowMs: number): void {
  runtime.clockOffsetMs = nowMs - monotonicMs();
}

/** Why a policy other than noeviction endangers jobs; empty when it is safe. */
export function evictionWarning(policy: string | undefined): string | undefined {
  if (policy === undefined || policy === "" || policy === "noeviction") return undefined;
  return `Redis evicts keys under memory pressure (maxmemory-policy ${policy}): queued jobs can vanish, and a volatile-* policy evicts live leases so jobs run twice. Set maxmemory-policy noeviction.`;
}

/** Redis over its maxmemory (used as Redis counts it against the limit): what stops, what goes on, what to do. */
export function fullWarning(usedMemory: number, maxMemory: number): string | undefined {
  if (maxMemory <= 0 || usedMemory <= maxMemory) return undefined;
  return `Redis is over its maxmemory (${usedMemory} bytes used of ${maxMemory}): enqueues and workflow starts fail with REDIS_FULL and no workflow run is claimed until memory frees; ticks still drain jobs, and the runs they hold go on to their end. Raise maxmemory, or remove work (dead jobs, old workflow runs).`;
}

/** Learns the eviction policy once per process and logs the warning once. */
export function learnEvictionPolicy(runtime: Runtime, policy: string): void {
  if (runtime.evictionPolicy !== undefined || policy === "") return;
  runtime.evictionPolicy = policy;
  const warning = evictionWarning(policy);
  if (warning) runtime.logger.warn(`tickq: ${warning}`);
}

// What a Redis Cluster answers, before running the script, to a call whose
// keys span slots (CROSSSLOT) or live on another node (MOVED, ASK), and
// while its slots are not all served (CLUSTERDOWN).
const CLUSTER_REPLY = /\b(CROSSSLOT|MOVED|ASK|CLUSTERDOWN)\b|non local key|do not hash to the same slot/;

/** Whether Redis refused a call as only a Redis Cluster node does. */
export function isClusterReply(error: unknown): boolean {
  return error instanceof Error && CLUSTER_REPLY.test(error.message);
}

/**
 * The error to refuse every call with when Redis answered as a Cluster and
 * the adapter did not declare `cluster: true`, so createTickq could not
 * check the prefix's hash tag; undefined for any other error.
 */
export function clusterRefusal(adapter: RedisAdapter, prefix: string, error: unknown): TickqError | undefined {
  if (adapter.cluster === true || !isClusterReply(error)) return undefined;
  const tagged =
    hashTagOf(prefix) !== undefined ? JSON.stringify(prefix) : `"{${prefix.replace(/[{}:]+$/g, "") || "tickq"}}:"`;
  return new TickqError(
    "BAD_OPTIONS",
    `Redis answered as a Redis Cluster, but the adapter does not say it is one, so tickq could not check that its keys share one slot. ` +
      `Set \`cluster: true\` on your adapter (ioredisAdapter sets it from the client) and put a hash tag in the prefix, such as prefix: ${tagged}, ` +
      `or spread the keys with partitions: N (docs/operate/cluster.md)`,
    { cause: error },
  );
}

/** The hash tag Redis Cluster reads in every key that starts with this prefix (the text between its first `{` and the next `}`), or undefined. */
export function hashTagOf(prefix: string): string | undefined {
  const open = prefix.indexOf("{");
  if (open < 0) return undefined;
  const close = prefix.indexOf("}", open + 1);
  return close > open + 1 ? prefix.slice(open + 1, close) : undefined;
}
