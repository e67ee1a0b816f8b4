// Flow control's stats per declared job name, read by stats.lua in the same
// call as the core's counters (lib/flow/stats.lua): every job name, since
// any job may be enqueued with `unique`.
import { escapeWord } from "../job/flow-descriptor.js";
import type { FlowStats } from "./types.js";
import { nameRecord } from "../name-record.js";

/** stats.lua's flow names, as descriptors write them. */
export function flowStatsArgs(names: string[]): string[] {
  return names.map(escapeWord);
}

/** stats.lua's flow rows, one per name asked: locks held, waiting, deferred. */
export function flowStatsFrom(rows: number[][], names: string[]): Record<string, FlowStats> {
  return nameRecord(
    names.map((name, k) => {
      const [locksHeld = 0, waiting = 0, deferred = 0] = rows[k] ?? [];
      return [name, { locksHeld, waiting, deferred }];
    }),
  );
}
