// The recurring pass of a tick. begin reports, at no extra round trip,
// whether Redis holds this deployment's declaration and which schedules are
// due (lib/recurring/find-due.lua). Only then does the tick send one more call,
// recurring.lua, with its declaration (when out of sync) and, for each due
// schedule, the slots its `missed` policy runs, computed here (cron: the `cron` parser).
// Safe with any number of ticks at once: Redis claims a schedule's slots
// only if its due time is still the one begin saw, so one tick wins and
// the others' claims do nothing; jids are "name:slot". The call also
// fetches what begin's batch left room for, so a due slot costs a tick one
// round trip, its job included.
import { TickqError } from "../errors.js";
import { readFetchedFenced } from "../flow/fences.js";
import type { FetchedJob } from "../tick/passes/fetch.js";
import { fetchArgs } from "../tick/queue-order.js";
import type { RecurringRuntime } from "./runtime.js";
import * as protocol from "../protocol/index.js";
import type { TickCalls } from "../tick/numbered.js";
import type { RecurringSet } from "./declare.js";
import { nextSlot, planSlots, type Memo } from "./slots.js";

/** How long a schedule no deployment declares lives on, so a rolling deploy does not flap it. */
export const PRUNE_GRACE_MS = 10 * 60_000;
/** Due schedules handled per tick; the rest are reported as `more`. */
const DUE_LIMIT = 1_000;

/** begin's recurring part (lib/recurring/find-due.lua). */
export function recurringDueArgs(
  set: RecurringSet,
  scheduleLimit: number,
): { digest: string; dueLimit: number; shiftMs: number } {
  return { digest: set.digest, dueLimit: Math.min(DUE_LIMIT, scheduleLimit), shiftMs: set.shiftMs };
}

/** begin's due part (lib/recurring/find-due.lua): whether Redis holds this declaration, the due schedules, whether more are due. */
export interface BegunDue {
  inSync: boolean;
  due: { name: string; slot: number; last: string }[];
  more: boolean;
}

interface ClaimArgs {
  name: string;
  specFp: string;
  slot: number;
  next: string;
  slots: { slot: number; queue: string; job: string }[];
}

export interface RecurringResult {
  /** Jobs enqueued for due slots. */
  enqueued: number;
  /** Jobs fetched by the call (from every queue the tick serves). */
  fetched: FetchedJob[];
  /** More schedules were due than one tick handles. */
  more: boolean;
  /** False when the lease was gone. */
  held: boolean;
  /** The texts of jobs its fetch recorded as expired (src/expiry/), if any. */
  expired?: string[];
}

export interface RecurringInput {
  tickId: string;
  /** begin's schedules reply (lib/recurring/find-due.lua); undefined when begin answered none. */
  due: BegunDue | undefined;
  /** Redis' time, as begin read it. */
  nowMs: number;
  /** Jobs to fetch: what begin's batch left room for. */
  room: number;
}

/** Reads begin's schedules reply and, when needed, sends the one schedules call. */
export async function runRecurring(
  runtime: RecurringRuntime,
  calls: TickCalls,
  input: RecurringInput,
): Promise<RecurringResult> {
  const { tickId, due: begun, nowMs, room } = input;
  const none: RecurringResult = { enqueued: 0, fetched: [], more: false, held: true };
  if (begun === undefined) return none;
  const set = runtime.recurring;
  const { inSync, due } = begun;
  if (inSync && due.length === 0) return none;

  const now = nowMs + set.shiftMs;
  const memo: Memo = new Map();
  const declared = inSync
    ? []
    : set.list.map((d) => ({
        name: d.name,
        timingFp: d.timingFp,
        specFp: d.fp,
        spec: JSON.stringify(d.spec),
        next: String(nextSlot(d, now, memo) ?? ""),
      }));
  const claims: ClaimArgs[] = [];
  const orphans: { name: string; slot: number }[] = [];
  for (const { name, slot, last } of due) {
    const d = set.byName.get(name);
    if (!d) {
      orphans.push({ name, slot });
      continue;
    }
    const plan = planSlots(d, slot, last === "" ? null : Number(last), now, memo);
    claims.push({
      name,
      specFp: d.fp,
      slot,
      next: String(plan.next ?? ""),
      slots: plan.slots.map((s) => ({ slot: s, queue: d.queue, job: d.jobFor(s) })),
    });
  }

  const result = await calls
    .send(protocol.recurring, {
      tickId,
      call: String(calls.next()),
      shiftMs: set.shiftMs,
      pruneGraceMs: PRUNE_GRACE_MS,
      digest: set.digest,
      sync: !inSync,
      declared,
      due: claims,
      orphans,
      fetch: fetchArgs(runtime.plan, room),
    })
    .catch((error: unknown) => {
      if (!(error instanceof TickqError && error.code === "REDIS_FULL")) throw error;
      // Nothing was written; the slots stay due for a later tick.
      runtime.logger.warn(`tickq: recurring jobs not enqueued: ${error.message}`);
      return undefined;
    });
  if (result === undefined) return none;
  return {
    enqueued: result.enqueued,
    fetched: readFetchedFenced(result.fetched, result.flow).jobs,
    more: begun.more,
    held: result.leaseHeld,
    ...(result.expired ? { expired: result.expired } : {}),
  };
}
