// tq.ticks.recent(): the last ticks that finished, newest first, from the
// capped list their finish calls keep (lib/tick/record-recent.lua), read by
// the same script as the live ticks (ticks.lua). An entry this code cannot
// read (written by a newer release, or by another client) is skipped.
import type { Runtime } from "../tick/runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { RecentTick } from "./types.js";

/** One entry, "<finished ms> <summary JSON>" (src/tick/recent.ts), or undefined. */
export function readRecent(entry: string): RecentTick | undefined {
  const space = entry.indexOf(" ");
  try {
    const { id, ms, leaseLost, more, ...rest } = JSON.parse(entry.slice(space + 1)) as Record<string, unknown>;
    if (typeof id !== "string" || typeof ms !== "number") return undefined;
    const counts = Object.fromEntries(Object.entries(rest).filter(([, v]) => typeof v === "number")) as Record<
      string,
      number
    >;
    return {
      id,
      finishedAt: Number(entry.slice(0, space)),
      durationMs: ms,
      counts,
      leaseLost: leaseLost === true,
      more: more === true,
    };
  } catch {
    return undefined;
  }
}

export async function listRecentTicks(runtime: Runtime): Promise<RecentTick[]> {
  const { recent } = await runCall(runtime, protocol.ticks, { ticks: runtime.keys.ticks }, { limit: 0 });
  return recent.map(readRecent).filter((t): t is RecentTick => t !== undefined);
}
