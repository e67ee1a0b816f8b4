// Events for code (`createTickq({ on })`, `tq.on`) and the failure log line.
// Both come after the ack that settled the job, and only for the jobs that
// ack did settle: a job its tick no longer held (its lease lapsed and a
// resurrector put it back) will run again, so it fires nothing now and
// each outcome fires exactly once. A listener that throws or rejects is
// logged; it never breaks the tick. The tick awaits what listeners return
// before it resolves, so a serverless function does not freeze them.
// The events of plain jobs are declared here; a capability adds its own to
// TickqEvents, or fields to an event, by declaration merging (workflows'
// `workflow.*` in src/workflows/types.ts, an ordered cancel's `ordered` in
// src/ordered/cancel-record.ts), and fires them through `emit`.
import { ackOrder, type Outcome } from "./passes/ack.js";
import { attemptOf, describeError } from "./retry.js";
import type { LogFields, LogSink } from "../telemetry/logger.js";
import type { JobPayload } from "../job/payload.js";

/** A job's outcome, as listeners get it (`succeeded`, and the base of `failed` and `dead`). */
export interface JobEvent {
  /** The job's id. */
  jid: string;
  /** The job's name. */
  name: string;
  /** The queue it ran from. */
  queue: string;
  /** Its args. */
  args: unknown[];
  /** 1 on the first run, 2 on the first retry, and so on. */
  attempt: number;
  /** The job as it was fetched, before this run's outcome was written to it. */
  payload: JobPayload;
}

/** A handler failure: the job is retried at `retryAt`, or went to the dead set. */
export interface FailedEvent extends JobEvent {
  /** What the handler threw. */
  error: unknown;
  /** When the retry is due; null when the job went to the dead set instead. */
  retryAt: Date | null;
}

/** A job sent to the dead set. */
export interface DeadEvent extends JobEvent {
  /** What the handler threw; undefined when the job could not run at all (poison, malformed). */
  error: unknown;
  /** Why it is dead, in words. */
  reason: string;
}

/** A job never started: a fetch found its expiry passed and recorded it as expired (src/expiry/). */
export interface ExpiredEvent extends JobEvent {
  /** When it expired (epoch ms, Redis' clock). */
  expiresAt: number;
}

/**
 * A job cancelled by tq.jobs.cancel: taken out where it waited, or ended (its result discarded) where it ran.
 * Also an ordered id's cancel (tq.jobs.cancelOrdered), one event per history record it made: then
 * `ordered` is set, `jid` is the record's (tq.jobs.find), `name` the ordered job's, `queue` is "",
 * `args` is `[id, payloads]` and `attempt` is 1 + the id's failed runs.
 */
export interface CancelledEvent extends JobEvent {
  /** Where it was when cancelled. */
  from: "queued" | "scheduled" | "retry" | "running";
}

/** Each event's name and what its listeners get (capabilities add theirs: see the top of this file). */
export interface TickqEvents {
  /** The handler returned. */
  succeeded: JobEvent;
  /** Every handler failure: retried, or out of retries (then `dead` follows, unless the job says `dead: false`). */
  failed: FailedEvent;
  /** The job went to the dead set. */
  dead: DeadEvent;
  /** A job's expiry passed before it started: it was recorded as expired, never run. */
  expired: ExpiredEvent;
  /** The job was cancelled (tq.jobs.cancel): fired by the tick that ended a running one, else by the caller of cancel. */
  cancelled: CancelledEvent;
}

/** `succeeded`, `failed`, `dead`, `expired`, `cancelled`, `workflow.completed` or `workflow.failed`. */
export type TickqEventName = keyof TickqEvents;
/** The events about one job (not a workflow run's): those whose listeners get a JobEvent. */
export type JobEventName = { [E in TickqEventName]: TickqEvents[E] extends JobEvent ? E : never }[TickqEventName];
/** A listener: the tick awaits what it returns (briefly) before it resolves; a throw is logged, never breaks the tick. */
export type TickqListener<E extends TickqEventName> = (event: TickqEvents[E]) => unknown;
/** The `on` option: one listener per event. */
export type TickqListenerOptions = { [E in TickqEventName]?: TickqListener<E> };

export type EventListeners = { [E in TickqEventName]: Set<TickqListener<E>> };

/** A set of listeners for each of `names`, which must be every event name (createTickq lists them). */
export function newListeners(names: readonly TickqEventName[], initial: TickqListenerOptions = {}): EventListeners {
  const listeners: Partial<Record<TickqEventName, Set<TickqListener<never>>>> = {};
  for (const name of names) {
    const set = new Set<TickqListener<never>>();
    const first = initial[name];
    if (first) set.add(first as TickqListener<never>);
    listeners[name] = set;
  }
  return listeners as EventListeners;
}

/** The job an outcome is about, for events: the decoded payload, else what its stored text says. */
function payloadOf(o: Outcome): JobPayload {
  if ("payload" in o && o.payload) return o.payload;
  const text = o.kind === "dead" ? o.updated : o.job.raw;
  try {
    const parsed = JSON.parse(text) as JobPayload;
    if (typeof parsed === "object" && parsed !== null)
      return { ...parsed, args: Array.isArray(parsed.args) ? parsed.args : [] };
  } catch {
    // a job that is not JSON: described by its queue alone
  }
  return { class: "", args: [], jid: "", queue: o.job.queue, retry: false };
}

export function baseEvent(o: Outcome): JobEvent {
  const payload = payloadOf(o);
  return {
    jid: String(payload.jid ?? ""),
    name: String(payload.class ?? ""),
    queue: o.job.queue,
    args: payload.args,
    attempt: attemptOf(payload),
    payload,
  };
}

export interface TickEvents {
  /**
   * After an ack call answered: `missed` is its list of the entries it found no longer listed (undefined: it acted on none);
   * `cancelled` the entries it settled as cancelled, whatever their outcome said (lib/tick/ack-jobs.lua).
   */
  settled(acked: Outcome[], missed: number[] | undefined, nowMs: number, cancelled?: number[]): void;
  /** Whether an event has listeners (an event nobody hears is not built). */
  listening(name: JobEventName): boolean;
  /** Fires an event a capability built (its listeners' promises are awaited with the tick's). */
  emit<E extends JobEventName>(name: E, event: TickqEvents[E]): void;
  /** After a fetch: the texts of the jobs it recorded as expired (none: undefined). */
  expired(texts: string[] | undefined): void;
  /** Waits for what listeners returned, for at most `ms`. */
  flush(ms: number): Promise<void>;
}

function expiredEvent(text: string): ExpiredEvent {
  let payload: JobPayload = { class: "", args: [], jid: "", queue: "", retry: false };
  try {
    const parsed = JSON.parse(text) as JobPayload;
    if (typeof parsed === "object" && parsed !== null)
      payload = { ...parsed, args: Array.isArray(parsed.args) ? parsed.args : [] };
  } catch {
    // a job that is not JSON cannot carry an expiry; kept for safety
  }
  return {
    jid: String(payload.jid ?? ""),
    name: String(payload.class ?? ""),
    queue: String(payload.queue ?? ""),
    args: payload.args,
    attempt: attemptOf(payload),
    expiresAt: Number(payload.tickq_expires_at ?? 0),
    payload,
  };
}

/** A job's fields on a structured line. */
function jobFields(e: JobEvent): LogFields {
  return { jid: e.jid, name: e.name, queue: e.queue, attempt: e.attempt };
}

/** Calls an event's listeners; a promise one returns joins `pending`, a failure is logged. */
export function emitter(listeners: EventListeners, logs: LogSink, pending: Promise<unknown>[]) {
  return <E extends JobEventName>(name: E, event: TickqEvents[E]): void => {
    const complain = (error: unknown) =>
      logs.write(
        "error",
        `tickq: a "${name}" listener failed for job ${event.name} ${event.jid}: ${describeError(error).message}`,
        {
          ...jobFields(event),
          event: name,
          err: error,
        },
      );
    for (const listener of listeners[name]) {
      try {
        const result = listener(event);
        if (result instanceof Promise) pending.push(result.catch(complain));
      } catch (error) {
        complain(error);
      }
    }
  };
}

/** Whether any outcome failed: one loop over an ack's outcomes, no callback a job (bench/client-instructions.ts). */
function anyFailed(acked: Outcome[]): boolean {
  for (let k = 0; k < acked.length; k++) {
    const { kind } = acked[k]!;
    if (kind === "retry" || kind === "dead" || kind === "discarded") return true;
  }
  return false;
}

export function tickEvents(listeners: EventListeners, logs: LogSink): TickEvents {
  const pending: Promise<unknown>[] = [];
  const call = emitter(listeners, logs, pending);

  const failure = (o: Extract<Outcome, { kind: "retry" | "dead" | "discarded" }>, nowMs: number) => {
    const base = baseEvent(o);
    const job = `job ${base.name || "(unreadable)"} ${base.jid || "(no jid)"}`;
    if (o.kind === "dead" && !o.handlerFailed) {
      const reason = o.reason ?? "it cannot run";
      logs.write("error", `tickq: ${job} moved to the dead set: ${reason}`, {
        ...jobFields(base),
        outcome: "dead",
        reason,
      });
      call("dead", { ...base, error: undefined, reason });
      return;
    }
    const { errorClass, message } = describeError(o.error);
    const delaySec = o.kind === "retry" ? o.delaySec : 0;
    const retryAt = o.kind === "retry" ? new Date(nowMs + delaySec * 1000) : null;
    const next = retryAt
      ? `retry due ${retryAt.toISOString()} (in ${Math.round(delaySec)} s)`
      : o.kind === "discarded"
        ? "out of retries, dropped (dead: false)"
        : "out of retries, moved to the dead set";
    const line = `tickq: ${job} failed (attempt ${base.attempt}): ${errorClass}: ${message.split("\n", 1)[0]}; ${next}`;
    const fields: LogFields = { ...jobFields(base), outcome: o.kind, errorClass, err: o.error };
    if (retryAt) fields.retryAt = retryAt.toISOString();
    logs.write(retryAt ? "warn" : "error", line, fields);
    call("failed", { ...base, error: o.error, retryAt });
    if (o.kind === "dead") call("dead", { ...base, error: o.error, reason: `${errorClass}: ${message}` });
  };

  return {
    settled(acked, missedReply, nowMs, cancelledReply) {
      // No list at all: the call acted on nothing (an older call's reply, "stale").
      if (missedReply === undefined) return;
      const succeeded = listeners.succeeded.size > 0;
      // An empty list of cancelled is none: a lane step's reply fills the fields before its run number
      // (step.lua's with_ran), and a pass over every acked job for no listener cost a job's share of it.
      const anyCancelled = cancelledReply !== undefined && cancelledReply.length > 0;
      if (acked.length === 0 || (!succeeded && !anyCancelled && !anyFailed(acked))) return;
      const missed = new Set(missedReply);
      const cancelled = new Set(cancelledReply);
      ackOrder(acked).forEach((o, k) => {
        if (missed.has(k + 1)) return;
        if (cancelled.has(k + 1)) call("cancelled", { ...baseEvent(o), from: "running" });
        else if (o.kind === "succeeded") {
          if (succeeded) call("succeeded", baseEvent(o));
        } else if (o.kind === "retry" || o.kind === "dead" || o.kind === "discarded") failure(o, nowMs);
      });
    },
    listening: (name) => listeners[name].size > 0,
    emit: call,
    expired(texts) {
      if (!texts || listeners.expired.size === 0) return;
      for (const text of texts) call("expired", expiredEvent(text));
    },
    async flush(ms) {
      if (pending.length === 0) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
      await Promise.race([Promise.allSettled(pending), late]);
      clearTimeout(timer);
    },
  };
}
