// Resurrect and delayed passes, run by Lua (lib/tick/resurrect-dead-ticks.lua,
// lib/delayed/promote-due.lua) inside begin and, while more is left and the tick's time
// allows, in extra housekeep calls.
import { asNumber } from "../../redis/adapter.js";
import type { RedisReply } from "../../types.js";

export interface HousekeepResult {
  nowMs: number;
  resurrected: number;
  scheduled: number;
  more: boolean;
}

/** Reads the first five fields that begin.lua and housekeep.lua share. */
export function readHousekeep(reply: RedisReply[]): HousekeepResult {
  return {
    nowMs: asNumber(reply[0]),
    resurrected: asNumber(reply[1]),
    scheduled: asNumber(reply[2]),
    more: asNumber(reply[3]) === 1 || asNumber(reply[4]) === 1,
  };
}

export interface HousekeepLimits {
  resurrectLimit: number;
  scheduleLimit: number;
  /** How long one tick holds the resurrector lock. */
  lockMs: number;
}

/** The housekeeping ARGV shared by begin.lua ([7..10]) and housekeep.lua ([3..6]). */
export function housekeepArgs(limits: HousekeepLimits): number[] {
  const registryScanLimit = 500;
  return [limits.resurrectLimit, limits.lockMs, registryScanLimit, limits.scheduleLimit];
}
