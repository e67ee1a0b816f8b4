// Schedule time for tests: the schedule clock of each tickq is Redis' time
// plus a shift (src/recurring/clock-shift.ts), so a test lives through an hour,
// a DST change or an outage in a second, with Redis still the only clock.
import type { Redis } from "ioredis";
import { shiftRecurringClock } from "../../../src/recurring/clock-shift.js";

export async function redisNowMs(redis: Redis): Promise<number> {
  const [sec, micro] = await redis.time();
  return Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
}

/** Sets the schedule clock of every tickq to read `atMs` now. */
export async function setClock(redis: Redis, tickqs: object[], atMs: number): Promise<void> {
  const nowMs = await redisNowMs(redis);
  for (const tq of tickqs) shiftRecurringClock(tq, { toMs: atMs, redisNowMs: nowMs });
}

/** Counts runs per jid. */
export function recorder() {
  const runs = new Map<string, number>();
  return {
    runs,
    job: (_args: unknown[], ctx: { jid: string }) => void runs.set(ctx.jid, (runs.get(ctx.jid) ?? 0) + 1),
    /** The slots (ms) run for schedule `name`, sorted. */
    slots: (name: string) =>
      [...runs.keys()]
        .filter((jid) => jid.startsWith(`${name}:`))
        .map((jid) => Number(jid.slice(name.length + 1)))
        .sort((a, b) => a - b),
  };
}

export const QUIET = { info() {}, warn() {}, error() {} };
export const MINUTE = 60_000;
