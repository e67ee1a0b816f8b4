// Events for code (`createTickq({ on })`, `tq.on`) and the failure log line.
// Both come after the ack that settled the job, and only for the jobs that
// ack did settle: a job its tick no longer held (its lease lapsed and a
// resurrector put it back) will run again, so it fires nothing now and
// each outcome fires exactly once. A listener that throws or rejects is
// logged; it never breaks the tick. The tick awaits what listeners return
// before it resolves, so a serverless function does not freeze them.
import { ackOrder, type Outcome } from "./passes/ack.js";
import { attemptOf, describeError } from "./retry.js";
import type { LogFields, LogSink } from "../telemetry/logger.js";
import type { JobPayload } from "../job/payload.js";
import type { WorkflowEvent } from "../workflows/types.js";
import type { OrderedOutcome } from "../ordered/work.js";
import { runEvent } from "../cancel/ordered-record.js";

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
  /** An ordered id's cancel only: what its record holds. */
  ordered?: OrderedCancelled;
}

/** An ordered id's cancelled record, as its `cancelled` event carries it. */
export interface OrderedCancelled {
  /** The ordered job's name. */
  name: string;
  /** The id. */
  id: string;
  /** The cancelled run's fence (`from: "running"`); absent for payloads that never ran. */
  fence?: number;
  /** The payloads the record took, lowest score first. */
  payloads: unknown[];
  /** Their scores. */
  scores: number[];
}

/** Each event's name and what its listeners get. */
export interface TickqEvents {
  /** The handler returned. */
  succeeded: JobEvent;
  /** Every handler failure: retried, or out of retries (then `dead` follows, unless the job says `dead: false`). */
  failed: FailedEvent;
  /** The job went to the dead set. */
  dead: DeadEvent;
  /** A job's expiry passed before it started: it was recorded as expired, never run. */
  expired: ExpiredEvent;
  /** A workflow run completed (its output committed). */
  "workflow.completed": WorkflowEvent;
  /** A workflow run failed (its failure committed). */
  "workflow.failed": WorkflowEvent;
  /** The job was cancelled (tq.jobs.cancel): fired by the tick that ended a running one, else by the caller of cancel. */
  cancelled: CancelledEvent;
}

/** `succeeded`, `failed`, `dead`, `expired`, `cancelled`, `workflow.completed` or `workflow.failed`. */
export type TickqEventName = keyof TickqEvents;
/** The events about one job (not a workflow run's). */
type JobEventName = Exclude<TickqEventName, "workflow.completed" | "workflow.failed">;
/** A listener: the tick awaits what it returns (briefly) before it resolves; a throw is logged, never breaks the tick. */
export type TickqListener<E extends TickqEventName> = (event: TickqEvents[E]) => unknown;
/** The `on` option: one listener per event. */
export type TickqListenerOptions = { [E in TickqEventName]?: TickqListener<E> };

export type EventListeners = { [E in TickqEventName]: Set<TickqListener<E>> };

export function newListeners(initial: TickqListenerOptions = {}): EventListeners {
  const listeners: EventListeners = {
    succeeded: new Set(),
    failed: new Set(),
    dead: new Set(),
    expired: new Set(),
    "workflow.completed": new Set(),
    "workflow.failed": new Set(),
    cancelled: new Set(),
  };
  if (initial.succeeded) listeners.succeeded.add(initial.succeeded);
  if (initial.failed) listeners.failed.add(initial.failed);
  if (initial.dead) listeners.dead.add(initial.dead);
  if (initial.expired) listeners.expired.add(initial.expired);
  if (initial["workflow.completed"]) listeners["workflow.completed"].add(initial["workflow.completed"]);
  if (initial["workflow.failed"]) listeners["workflow.failed"].add(initial["workflow.failed"]);
  if (initial.cancelled) listeners.cancelled.add(initial.cancelled);
  return listeners;
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
  /** After an ack call answered: `settled` is its "NAME FENCE" list of the ordered runs it settled as cancelled. */
  orderedCancelled(acked: OrderedOutcome[], settled: string[] | undefined): void;
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
      const failedOne = (o: Outcome) => o.kind === "retry" || o.kind === "dead" || o.kind === "discarded";
      if (acked.length === 0 || (!succeeded && !acked.some(failedOne) && cancelledReply === undefined)) return;
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
    orderedCancelled(acked, settled) {
      if (!settled || settled.length === 0 || listeners.cancelled.size === 0) return;
      const runs = new Map(acked.map((o) => [`${o.item.name} ${o.item.fence}`, o.item]));
      for (const key of settled) {
        const item = runs.get(key);
        if (item) call("cancelled", runEvent(item));
      }
    },
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
