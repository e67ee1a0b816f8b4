// maxParallel: a tick starts only while fewer than maxParallel ticks are
// live, counted in Redis from the live-tick registry (parallel.lua), so a
// burst of kicks and fan-out calls from many instances never runs more
// ticks at once than asked. A fan-out reserves ids first (reserveTicks)
// and each request it sends runs its tick under one of them: a slot is
// taken once, when it is granted, and held until that tick ends.
import { TickqError } from "../errors.js";
import { monotonicMs } from "../tick/clock.js";
import { newJid } from "../job/codec.js";
import { isPrintableName } from "../names.js";
import { numberOption } from "../options.js";
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { callPatienceMs, sendResent } from "../tick/calls.js";
import { runTick } from "../tick/run.js";
import type { TickOptions } from "../tick/options.js";
import type { TickReport } from "../tick/tick-report.js";

/** How long a granted slot waits for its tick to begin: a fan-out request on its way, a cold start. */
const RESERVE_MS = 15_000;

export interface Grant {
  /** The ids that hold a slot. */
  ids: string[];
  /** Other ticks live or reserved when they were granted. */
  others: number;
}

/** Reserves up to `count` tick slots below `maxParallel`. */
export async function reserveTicks(
  runtime: Runtime,
  count: number,
  maxParallel: number,
  ids = newIds(count),
): Promise<Grant> {
  numberOption(maxParallel, 1, "maxParallel", { min: 1, integer: true });
  if (ids.length === 0) return { ids: [], others: 0 };
  // A grant whose reply was lost is sent again: the replay grants the same ids, taking no second slot (parallel.lua).
  const reply = await sendResent(
    runtime,
    protocol.parallel,
    { ticks: runtime.keys.ticks, reserved: `${runtime.prefix}ticks:reserved` },
    { maxLive: maxParallel, reserveMs: RESERVE_MS, ids },
    { count: 0 },
    callPatienceMs(runtime),
  );
  return { ids: ids.slice(0, reply.granted), others: reply.others };
}

/** tq.tick(): gated by maxParallel when it is given. */
export async function startTick(runtime: Runtime, options: TickOptions = {}): Promise<TickReport> {
  const { maxParallel, tickId } = options;
  if (tickId !== undefined && !isPrintableName(tickId, 64)) {
    throw new TickqError(
      "BAD_OPTIONS",
      "tickId must be 1–64 characters without spaces or control characters (an id from tq.reserveTicks)",
    );
  }
  if (maxParallel === undefined) return runTick(runtime, options, tickId);
  const id = tickId ?? newIds(1)[0]!;
  const started = monotonicMs();
  const grant = await reserveTicks(runtime, 1, maxParallel, [id]);
  if (grant.ids.length === 1) {
    const report = await runTick(runtime, options, id);
    report.roundTrips += 1; // the grant
    return report;
  }
  return {
    tickId: id,
    fetched: 0,
    succeeded: 0,
    failed: 0,
    retried: 0,
    dead: 0,
    discarded: 0,
    expired: 0,
    cancelled: 0,
    resurrected: 0,
    scheduled: 0,
    recurring: 0,
    requeued: 0,
    abandoned: 0,
    deadEvicted: 0,
    more: false,
    leaseLost: false,
    roundTrips: 1,
    durationMs: monotonicMs() - started,
    skipped: true,
  };
}

const newIds = (n: number) => Array.from({ length: n }, () => newJid().slice(0, 16));
