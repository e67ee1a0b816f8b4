// Flow control's stats per declared job name, read by stats.lua in the same
// call as the core's counters (lib/flow/stats.lua): every job name, since
// any job may be enqueued with `unique`.
import { asArray, asNumber } from "../redis/adapter.js";
import { escapeWord } from "./descriptor.js";
import type { RedisReply } from "../types.js";
import type { FlowStats } from "./types.js";

/** stats.lua's flow arguments: n, then the names as descriptors write them. */
export function flowStatsArgs(names: string[]): (string | number)[] {
  return [names.length, ...names.map(escapeWord)];
}

export function flowStatsFrom(reply: RedisReply | undefined, names: string[]): Record<string, FlowStats> {
  const rows = asArray(reply ?? [], "stats");
  const out: Record<string, FlowStats> = {};
  names.forEach((name, k) => {
    const [locksHeld = 0, waiting = 0, deferred = 0] = asArray(rows[k] ?? [], "stats").map(asNumber);
    out[name] = { locksHeld, waiting, deferred };
  });
  return out;
}
