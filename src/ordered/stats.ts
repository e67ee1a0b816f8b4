// Sizes per ordered job, read by stats.lua in the same call as the core's
// counters (lib/ordered/count-sizes.lua); none when no ordered job is declared.
import { asArray, asNumber } from "../redis/adapter.js";
import type { RedisReply } from "../types.js";
import type { OrderedStats } from "./types.js";

export function orderedStatsFrom(reply: RedisReply | undefined, names: string[]): Record<string, OrderedStats> {
  const rows = asArray(reply ?? [], "stats");
  const out: Record<string, OrderedStats> = {};
  names.forEach((name, k) => {
    const [waiting = 0, running = 0, payloads = 0, dead = 0] = asArray(rows[k] ?? [], "stats").map(asNumber);
    out[name] = { waiting, running, payloads, dead };
  });
  return out;
}
