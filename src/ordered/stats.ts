// Sizes per ordered job, read by stats.lua in the same call as the core's
// counters (lib/ordered/count-sizes.lua); none when no ordered job is declared.
import type { OrderedStats } from "./types.js";
import { nameRecord } from "../name-record.js";

/** stats.lua's ordered rows, one per name asked: waiting, running, payloads, dead. */
export function orderedStatsFrom(rows: number[][], names: string[]): Record<string, OrderedStats> {
  return nameRecord(
    names.map((name, k) => {
      const [waiting = 0, running = 0, payloads = 0, dead = 0] = rows[k] ?? [];
      return [name, { waiting, running, payloads, dead }];
    }),
  );
}
