// A job as its code declares it: the handler, or the handler with its
// options (queue, retries, backoff, timeout, and what capabilities read of
// it: flow limits, priority, group, schema, debounce), and the registry of
// them that enqueue checks names and args against.
import type { Duration } from "../duration.js";
import type { ConcurrencyLimit, Debounce, KeyArgs, RateLimit } from "./limits.js";
import type { JobContext, JobHandler } from "./context.js";
import type { StandardSchemaV1 } from "./standard-schema.js";

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
