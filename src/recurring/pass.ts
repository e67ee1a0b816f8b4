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
import { asArray, asNumber } from "../redis/adapter.js";
import type { Runtime } from "../tick/runtime.js";
import { scripts } from "../lua/index.js";
import type { TickCalls } from "../tick/calls.js";
import type { RedisReply } from "../types.js";
import type { RecurringSet } from "./declare.js";
import { nextSlot, planSlots, type Memo } from "./slots.js";

/** How long a schedule no deployment declares lives on, so a rolling deploy does not flap it. */
export const PRUNE_GRACE_MS = 10 * 60_000;
/** Due schedules handled per tick; the rest are reported as `more`. */
const DUE_LIMIT = 1_000;

/** begin's last three ARGV (lib/recurring/find-due.lua). */
export function recurringDueArgs(set: RecurringSet, scheduleLimit: number): (string | number)[] {
  return [set.digest, Math.min(DUE_LIMIT, scheduleLimit), set.shiftMs];
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
}

export interface RecurringInput {
  tickId: string;
  /** begin's schedules reply (lib/recurring/find-due.lua). */
  reply: RedisReply | undefined;
  /** Redis' time, as begin read it. */
  nowMs: number;
  /** Jobs to fetch: what begin's batch left room for. */
  room: number;
}

/** Reads begin's schedules reply and, when needed, sends the one schedules call. */
export async function runRecurring(runtime: Runtime, calls: TickCalls, input: RecurringInput): Promise<RecurringResult> {
  const { tickId, reply, nowMs, room } = input;
  const none: RecurringResult = { enqueued: 0, fetched: [], more: false, held: true };
  if (!Array.isArray(reply)) return none;
  const set = runtime.recurring;
  const inSync = asNumber(reply[0]) === 1;
  const due = asArray(reply[1] ?? [], "begin");
  if (inSync && due.length === 0) return none;

  const now = nowMs + set.shiftMs;
  const memo: Memo = new Map();
  const sync: (string | number)[] = [];
  if (!inSync) {
    for (const d of set.list) sync.push(d.name, d.timingFp, d.fp, JSON.stringify(d.spec), nextSlot(d, now, memo) ?? "");
  }
  const claims: (string | number)[] = [];
  const orphans: (string | number)[] = [];
  let claimCount = 0;
  for (let i = 0; i < due.length; i += 3) {
    const name = String(due[i]);
    const slot = asNumber(due[i + 1]);
    const d = set.byName.get(name);
    if (!d) {
      orphans.push(name, slot);
      continue;
    }
    const last = due[i + 2] === "" || due[i + 2] === null ? null : asNumber(due[i + 2]);
    const plan = planSlots(d, slot, last, now, memo);
    claims.push(name, d.fp, slot, plan.next ?? "", plan.slots.length);
    for (const s of plan.slots) claims.push(s, d.queue, d.jobFor(s));
    claimCount++;
  }

  const args = [
    tickId, calls.next(), set.shiftMs, PRUNE_GRACE_MS, set.digest, inSync ? 0 : 1,
    sync.length / 5, ...sync, claimCount, ...claims, orphans.length / 2, ...orphans, ...fetchArgs(runtime.plan, room),
  ];
  let result: RedisReply[];
  try {
    result = asArray(await calls.send(scripts.recurring, args), "recurring");
  } catch (error) {
    if (!(error instanceof TickqError && error.code === "REDIS_FULL")) throw error;
    // Nothing was written; the slots stay due for a later tick.
    runtime.logger.warn(`tickq: recurring jobs not enqueued: ${error.message}`);
    return none;
  }
  return { enqueued: asNumber(result[1]), fetched: readFetchedFenced(result[4], result[5]).jobs, more: asNumber(reply[2]) === 1, held: asNumber(result[0]) === 1 };
}
