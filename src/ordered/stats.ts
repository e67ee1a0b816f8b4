// Sizes per ordered job, read by stats() beside the core's counters in one
// more round trip, sent at the same time; none when no ordered job is declared.
import { asArray, asNumber } from "../redis.js";
import type { Runtime } from "../runtime.js";
import { scripts } from "../scripts/index.js";
import type { OrderedStats } from "./types.js";

export async function readOrderedStats(runtime: Runtime): Promise<Record<string, OrderedStats>> {
  const names = runtime.orderedNames;
  if (names.length === 0) return {};
  const reply = asArray(await runtime.run(scripts.ordered_stats, [`${runtime.prefix}ordered`], [names.length, ...names], { count: 0 }), "ordered_stats");
  const out: Record<string, OrderedStats> = {};
  names.forEach((name, k) => {
    const [waiting, running, payloads, dead] = asArray(reply[k] ?? [], "ordered_stats").map(asNumber);
    out[name] = { waiting: waiting ?? 0, running: running ?? 0, payloads: payloads ?? 0, dead: dead ?? 0 };
  });
  return out;
}
