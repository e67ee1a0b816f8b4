// What a tick and the client share, resolved once from the options (src/runtime.ts
// builds it, with each capability's slice beside it), and the clock and cluster
// helpers every layer above reads it through.
import { monotonicMs } from "./clock.js";
import { TickqError } from "../errors.js";
import type { EventListeners } from "./events.js";
import type { Durability } from "./durability.js";
import type { Keys } from "../keys.js";
import type { QueuePlan } from "./queue-order.js";
import type { RoundTrips } from "../redis/adapter.js";
import type { LogSink } from "../telemetry/logger.js";
import type { Tracing } from "../telemetry/tracing.js";
import type { Capability } from "./capability.js";
import type { JobDefinition, JobRegistry } from "../job/definition.js";
import type { JobLogger, Middleware } from "../job/context.js";
import type { LuaScript, RedisAdapter, RedisReply } from "../redis/types.js";

export interface Runtime {
  redis: RedisAdapter;
  prefix: string;
  keys: Keys;
  jobs: JobRegistry;
  plan: QueuePlan;
  /** The queues the `queues` option lists (none when it is not given): stats() and queues.list() show them before their first job. */
  declaredQueues: string[];
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
  /** Built by createTestTickq (tickq/testing): may tick a prefix whose clock is virtual; any other tickq refuses one. */
  virtualClock: boolean;
  /** Redis' maxmemory-policy, read once per process by the first tick (or stats). */
  evictionPolicy: string | undefined;
  /** Some job has a timeoutMs: ticks check the budget left before starting one. */
  timeouts: boolean;
  /** Some job has a schema: enqueue checks args against it (src/job/schema-check.ts). */
  schemas: boolean;
  /** Largest job text (or ordered payload) enqueue accepts, in bytes. */
  maxJobBytes: number;
  /** Replicas every write waits for (src/tick/durability.ts); undefined: none. */
  durability: Durability | undefined;
  /** Set by src/partitions/ on each partition's core. */
  partition?: {
    index: number;
    count: number;
    /** A new jid that hashes to this partition (src/partitions/jid.ts), so tq.jobs.find asks one partition. */
    newJid(): string;
    /** The runtime of the partition a run id lives in (a child workflow run may live in another). */
    runtimeOf?: (routeKey: string) => Runtime;
  };
  /** What plugs into its ticks (tick/capability.ts), set by createTickq; none: plain jobs alone. */
  capabilities?: readonly Capability[];
  run(script: LuaScript, keys: string[], args: (string | number)[], trips: RoundTrips): Promise<RedisReply>;
}

export function definitionOf(runtime: Runtime, name: string): JobDefinition<never> | undefined {
  const entry = Object.hasOwn(runtime.jobs, name) ? runtime.jobs[name] : undefined;
  if (entry === undefined) return undefined;
  return typeof entry === "function" ? bareDefinition(entry) : entry;
}

// The definition of the bare function last asked for: a tick mostly runs jobs of one name, and then
// builds no `{ perform }` a job (bench/client-instructions.ts). Keyed by the function itself, so a
// registry changed since still answers its own entry; nothing writes to a definition.
let lastPerform: unknown;
let lastDefinition: JobDefinition<never> | undefined;

function bareDefinition(perform: JobDefinition<never>["perform"]): JobDefinition<never> {
  if (perform !== lastPerform || lastDefinition === undefined) {
    lastPerform = perform;
    lastDefinition = { perform };
  }
  return lastDefinition;
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
