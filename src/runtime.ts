// The runtime createTickq builds from its options: what the tick core reads
// (tick/runtime.ts) and each capability's slice (its own runtime.ts), checked
// and defaulted once. Options a capability owns are read by that capability's
// checks; an unknown option is refused by name.
import { monotonicMs, VIRTUAL_CLOCK } from "./tick/clock.js";
import { TickqError } from "./errors.js";
import { newListeners, type TickqEventName } from "./tick/events.js";
import { confirmReplicated, durabilityOf } from "./tick/durability.js";
import { DEFAULT_MAX_JOB_BYTES } from "./job/size.js";
import { checkKnownKeys, MAX_TIMER_MS, numberOption } from "./options.js";
import { checkJobDefinitions } from "./client/definitions.js";
import { acceptedQueues } from "./tick/accepted-queues.js";
import { keysFor } from "./keys.js";
import { checkTimeouts } from "./tick/passes/timeout.js";
import { checkOrdered } from "./ordered/registry.js";
import type { OrderedSlice } from "./ordered/runtime.js";
import { checkWorkflows } from "./workflows/registry.js";
import type { WorkflowRegistry } from "./workflows/types.js";
import type { WorkflowsSlice } from "./workflows/runtime.js";
import { planQueues } from "./tick/queue-order.js";
import { deadMaxAgeSeconds, warnSecondsForms } from "./tick/seconds-options.js";
import { newScriptCache, runScript } from "./redis/adapter.js";
import { declareRecurring } from "./recurring/declare.js";
import type { RecurringSlice } from "./recurring/runtime.js";
import { sidekiqProcessOf } from "./sidekiq/process.js";
import type { SidekiqSlice } from "./sidekiq/runtime.js";
import { resultSettings } from "./results/settings.js";
import type { ResultsSlice } from "./results/runtime.js";
import type { CancelSlice } from "./cancel/runtime.js";
import type { MetricsSlice } from "./metrics/runtime.js";
import { CancelWatch } from "./cancel/watch.js";
import { logSink, textFace } from "./telemetry/logger.js";
import { Tracing } from "./telemetry/tracing.js";
import { metricsSettings } from "./metrics/settings.js";
import { clusterRefusal, hashTagOf, type Runtime } from "./tick/runtime.js";
import type { JobRegistry } from "./job/definition.js";
import type { RedisReply } from "./redis/types.js";
import type { TickqOptions } from "./types.js";

/** The whole runtime: the tick core's and every capability's slice. */
export type TickqRuntime = Runtime &
  OrderedSlice &
  WorkflowsSlice &
  RecurringSlice &
  SidekiqSlice &
  ResultsSlice &
  CancelSlice &
  MetricsSlice;

// Every event a tickq fires (the jobs' of tick/events.ts and its capabilities'), in the order `on`'s error lists them.
const EVENTS: Readonly<Record<TickqEventName, true>> = {
  succeeded: true,
  failed: true,
  dead: true,
  expired: true,
  "workflow.completed": true,
  "workflow.failed": true,
  cancelled: true,
};
export const EVENT_NAMES = Object.keys(EVENTS) as TickqEventName[];

const OPTION_KEYS: Readonly<Record<keyof TickqOptions, true>> = {
  redis: true,
  jobs: true,
  ordered: true,
  workflows: true,
  workflowRetentionMs: true,
  eventRetentionMs: true,
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

export function createRuntime<J extends JobRegistry>(options: TickqOptions<J>): TickqRuntime {
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
  const runtime: TickqRuntime = {
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
    eventRetentionMs: numberOption(options.eventRetentionMs, 3600_000, "eventRetentionMs", { min: 0, integer: true }),
    plan: planQueues(options.queues ?? ["default"]),
    declaredQueues: options.queues === undefined ? [] : planQueues(options.queues).names,
    acceptedQueues: acceptedQueues(options.queues, options.jobs, options.allowUndeclaredQueues),
    maxRetries: numberOption(options.maxRetries, 25, "maxRetries", { min: 0, integer: true }),
    // 0 would send every job of a dead tick to the dead set unrun.
    maxResurrections: numberOption(options.maxResurrections, 3, "maxResurrections", { min: 1, integer: true }),
    idWindowMs: numberOption(options.idWindowMs, 24 * 3600_000, "idWindowMs", { min: 1_000, integer: true }),
    replayWindowMs: numberOption(options.replayWindowMs, 600_000, "replayWindowMs", { min: 1_000, integer: true }),
    deadMaxJobs: numberOption(options.deadMaxJobs, 10_000, "deadMaxJobs", { min: 1, integer: true }),
    deadMaxAgeSeconds: deadMaxAgeSeconds(options),
    // A call's timer: a longer timeout would fire after 1 ms, so every call failed REDIS_TIMEOUT at once.
    redisTimeoutMs: numberOption(options.redisTimeoutMs, 10_000, "redisTimeoutMs", { min: 1, max: MAX_TIMER_MS }),
    logger,
    logs,
    tracing: options.telemetry ? new Tracing(options.telemetry, (message) => logger.warn(message)) : undefined,
    middleware: [],
    listeners: newListeners(EVENT_NAMES, options.on),
    // Under Sidekiq's own key names, Sidekiq's rule: no backtrace unless the job asks for one.
    backtraceLines: numberOption(options.backtraceLines, prefix === "" ? 0 : 20, "backtraceLines", {
      min: 0,
      integer: true,
    }),
    logLines: numberOption(options.logLines, 20, "logLines", { min: 0, integer: true }),
    // Until Redis answers, the host's wall clock read once is the best guess.
    clockOffsetMs: Date.now() - monotonicMs(),
    evictionPolicy: undefined,
    virtualClock: (options as { [VIRTUAL_CLOCK]?: unknown })[VIRTUAL_CLOCK] === true,
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
