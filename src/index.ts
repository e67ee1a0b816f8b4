// "tickq": createTickq (core.ts) with croner parsing cron schedules unless
// told otherwise, and every public type. The Worker and Vercel entries use
// the core without croner and take `cron` from "tickq/cron" instead.
/**
 * createTickq, the client and the tick in one object, with every public type.
 *
 * @module tickq
 */
import { createTickqCore } from "./core.js";
import type { Tickq } from "./tickq.js";
import type { OrderedRegistry } from "./ordered/types.js";
import { cron } from "./recurring/cron.js";
import type { JobRegistry } from "./job/definition.js";
import type { TickqOptions } from "./types.js";
import type { WorkflowInputs } from "./workflows/types.js";

/**
 * Builds a tickq: the client (enqueue), the tick (run jobs), and the jobs API, over one Redis. Only
 * `redis` and `jobs` are required; bad options throw a TickqError BAD_OPTIONS.
 * @example
 * const tq = createTickq({
 *   redis: ioredisAdapter(new Redis(process.env.REDIS_URL)),
 *   jobs: { sendEmail: async ([to]: [string], ctx) => { … } },
 *   ordered: { indexShipment: { perform: async (id: string, payloads: { v: number }[], ctx) => { … }, retry: 25 } },
 * });
 * await tq.enqueue("sendEmail", ["a@b.c"]);
 * await tq.enqueueOrdered("indexShipment", { id: "shipment-42", payload: { v: 7 }, score: 7 });
 * const report = await tq.tick({ budgetMs: 10_000 });
 */
export function createTickq<
  J extends JobRegistry,
  O extends OrderedRegistry = Record<never, never>,
  W extends WorkflowInputs = Record<never, never>,
>(options: TickqOptions<J, O, W>): Tickq<J, O, W> {
  // options?.: with no options at all, createRuntime still answers its own BAD_OPTIONS.
  return createTickqCore<J, O, W>({ ...options, cron: options?.cron ?? cron });
}

export type { StatsReader, TicksReader, Tickq } from "./tickq.js";
export type { AuthGuards } from "./admin/guards.js";
export { TickqError } from "./errors.js";
export { TickqCancelled } from "./cancel/errors.js";
export { JobFailedError, WaitTimeoutError } from "./results/errors.js";
export { defineJob } from "./client/define-job.js";
export type { StandardSchemaV1 } from "./job/standard-schema.js";
export { JOB_STATES } from "./admin/states.js";
export { defaultBackoff } from "./tick/retry.js";
export { defaultBackoffMs } from "./tick/backoff.js";
export { migratePartitions } from "./partitions/migrate.js";
export type { MigratePartitionsOptions, MigrationReport } from "./partitions/migrate.js";
export type { DurabilityOptions, QueueOrder, SidekiqProcessOptions, TickqOptions, TickReport } from "./types.js";
export type { LuaScript, RedisAdapter, RedisReply } from "./redis/types.js";
export type { JobPayload } from "./job/payload.js";
export type { JobContext, JobHandler, JobLogger, Middleware, RunningJob } from "./job/context.js";
export type { ArgsOf, JobDefinition, JobRegistry, SchemaJobDefinition } from "./job/definition.js";
export type { Stats } from "./stats/types.js";
export type { BulkJob, BulkJobOf, EnqueueOptions, UniqueMode } from "./job/enqueue-options.js";
export type { TickOptions } from "./tick/options.js";
export type * from "./ordered/types.js";
export type * from "./workflows/types.js";
export { WorkflowFailedError } from "./workflows/errors.js";
export { defineWorkflow } from "./workflows/define.js";
export type * from "./flow/types.js";
export type { ConcurrencyLimit, Debounce, KeyArgs, RateLimit } from "./job/limits.js";
export type * from "./recurring/types.js";
export type * from "./kick/types.js";
export type * from "./admin/types.js";
export type * from "./results/types.js";
export type { DayStats } from "./stats/history.js";
export type { UnstartableJobs, UnstartableReason } from "./tick/unstartable-warnings.js";
export type * from "./metrics/types.js";
export type { MetricsOptions } from "./metrics/settings.js";
export type { TelemetryOptions } from "./telemetry/tracing.js";
export type { LogFields, StructuredLogger } from "./telemetry/logger.js";
export type {
  OtelApi,
  OtelAttributeValue,
  OtelContext,
  OtelLink,
  OtelSpan,
  OtelSpanContext,
  OtelSpanOptions,
  OtelTraceState,
  OtelTracer,
} from "./telemetry/otel.js";
export type {
  CancelledEvent,
  DeadEvent,
  ExpiredEvent,
  FailedEvent,
  JobEvent,
  TickqEventName,
  TickqEvents,
  TickqListener,
  TickqListenerOptions,
} from "./tick/events.js";
export type { OrderedCancelled } from "./ordered/cancel-record.js";
