// Resurrect and delayed passes, run by Lua (lib/tick/resurrect-dead-ticks.lua,
// lib/delayed/promote-due.lua) inside begin and, while more is left and the tick's time
// allows, in extra housekeep calls.

export interface HousekeepResult {
  nowMs: number;
  resurrected: number;
  scheduled: number;
  more: boolean;
}

/** The first five fields that begin.lua and housekeep.lua share, as src/protocol/sections.ts names them. */
export function readHousekeep(reply: {
  nowMs: number;
  resurrected: number;
  scheduled: number;
  moreResurrect: boolean;
  moreSchedule: boolean;
}): HousekeepResult {
  return {
    nowMs: reply.nowMs,
    resurrected: reply.resurrected,
    scheduled: reply.scheduled,
    more: reply.moreResurrect || reply.moreSchedule,
  };
}

export interface HousekeepLimits {
  resurrectLimit: number;
  scheduleLimit: number;
  /** How long one tick holds the resurrector lock. */
  lockMs: number;
}

/** The housekeep part that begin.lua and housekeep.lua share. */
export function housekeepArgs(limits: HousekeepLimits): {
  resurrectLimit: number;
  lockMs: number;
  scanLimit: number;
  scheduleLimit: number;
} {
  return {
    resurrectLimit: limits.resurrectLimit,
    lockMs: limits.lockMs,
    scanLimit: 500,
    scheduleLimit: limits.scheduleLimit,
  };
}
