// Ordered jobs by id (Lowkiq's model, without its fixed shards). The terms:
//
// ordered job  a name declared in createTickq({ ordered }), with a handler
//              perform(id, payloads, ctx)
// id           what the payloads are about (a shipment, an account): all
//              payloads of one id merge into one execution, and no two
//              executions of one id ever overlap
// payload      JSON data enqueued for an id, with a score; an id's payloads
//              form a sorted set (an identical payload is stored once)
// execution    one run of the handler for an id, with every payload that
//              waited for it (at most `maxPayloads`), lowest score first
// fence        a number that grows with every execution, handed to the
//              handler so a downstream store can refuse a stale write
import type { StandardSchemaV1 } from "../job/standard-schema.js";
import type { JobLogger } from "../job/context.js";
import type { Duration } from "../duration.js";

/** What an ordered job's handler gets beside the id and its payloads. */
export interface OrderedContext {
  /** The ordered job's name. */
  name: string;
  /** The id this execution is for. */
  id: string;
  /**
   * Grows with every execution of this id (it counts the executions of
   * every id of this name). A store that keeps the largest fence it saw per
   * id can refuse a stale write: `UPDATE … WHERE fence < $1`.
   */
  fence: number;
  /** The payloads' scores, in the same order, lowest first. */
  scores: number[];
  /** 1 on the first run, 2 after one failure, and so on. */
  attempt: number;
  /**
   * Aborts at the tick's deadline, when the tick loses its lease, and when
   * the tick could not confirm its lease in time: another tick may soon
   * hold this id. Stop, or guard writes with `fence`.
   */
  signal: AbortSignal;
  /** The `logger`, with the name, id and fence on each line (as fields, with attempt, for a `structuredLogger`). */
  log: JobLogger;
}

/** An ordered job's code: called with the id and every payload that waited for it, lowest score first. */
export type OrderedHandler<P = unknown> = (id: string, payloads: P[], ctx: OrderedContext) => unknown;

/** An ordered job: its handler, its retries and its backoff. */
export interface OrderedDefinition<P = unknown> {
  /** The ordered job's code. */
  perform: OrderedHandler<P>;
  /** false: no retry (straight to the dead set); a number: that many retries; true (default): `maxRetries`. */
  retry?: boolean | number;
  /**
   * Milliseconds (or a duration string: "30s", "5m") to wait before retry number `count` (0-based);
   * default Sidekiq's (`defaultBackoffMs`).
   */
  backoffMs?: (count: number, error: unknown) => Duration;
  /** @deprecated Seconds to wait before retry number `count`: use `backoffMs`; removed in the next release. */
  backoff?: (count: number, error: unknown) => number;
  /**
   * A Standard Schema validator of each payload (valibot, zod, arktype…), checked at enqueue: a
   * failure is a BAD_ARGS TickqError naming the path, nothing written. Its output is what is stored.
   */
  schema?: StandardSchemaV1;
  /**
   * At most this many payloads an execution (an integer ≥ 1), lowest score first; default: no cap,
   * every waiting payload of the id merged into one execution. The rest stay the id's and run in
   * later executions, in order, one execution of the id at a time: 1 gives per-id FIFO, one payload
   * an execution (as SQS FIFO message groups). A failed run's retry gets the run's payloads back with
   * the rest, and takes the lowest `maxPayloads` of them again; a dead run's dead entry holds only its
   * own payloads. docs/guides/ordered.md.
   */
  maxPayloads?: number;
}

// As with plain jobs, `never` lets a handler declare its own payload type.
/** The `ordered` option: ordered job name → {@link OrderedDefinition}. */
export type OrderedRegistry = Record<string, OrderedDefinition<never>>;

/** The payload type an ordered job's handler declares. */
export type PayloadOf<T> = T extends {
  /** An ordered job with a schema: its payload is what the schema accepts. */
  schema: infer S extends StandardSchemaV1;
}
  ? StandardSchemaV1.InferInput<S>
  : T extends OrderedDefinition<infer P>
    ? [P] extends [never]
      ? unknown
      : P
    : unknown;

/** One payload for an id, as `tq.enqueueOrdered` takes it. */
export interface OrderedJob<P = unknown> {
  /** A non-empty string of at most 1,024 characters. */
  id: string;
  /** Any JSON value; stored as its JSON text. */
  payload: P;
  /** Orders the id's payloads, lowest first; default Redis' time in ms, sequenced within the ms (enqueue order). */
  score?: number;
  /** The id is due this many ms from now, unless it is due earlier already. */
  delayMs?: number;
}

/** One payload of `tq.enqueueOrderedBulk`: an {@link OrderedJob} and the ordered job's name. */
export interface OrderedBulkJob<Name extends string = string> extends OrderedJob {
  /** The ordered job's name, a key of `ordered`. */
  name: Name;
}

/** Per ordered job, in `tq.stats().ordered`. */
export interface OrderedStats {
  /** Ids with payloads waiting: ready, backing off, or behind a run. */
  waiting: number;
  /** Ids being executed now. */
  running: number;
  /** Payloads waiting (not given to a run yet). */
  payloads: number;
  /** Dead entries (an id and the payloads of its last failed run). */
  dead: number;
}
