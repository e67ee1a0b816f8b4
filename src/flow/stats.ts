// Flow control's stats per declared job name, read by stats() beside the
// core's counters in one more round trip, sent at the same time.
import { asArray, asNumber } from "../redis.js";
import { escapeWord } from "./descriptor.js";
import type { Runtime } from "../runtime.js";
import { scripts } from "../scripts/index.js";
import type { FlowStats } from "./types.js";

export async function readFlowStats(runtime: Runtime): Promise<Record<string, FlowStats>> {
  const names = Object.keys(runtime.jobs);
  if (names.length === 0) return {};
  const args = [names.length, ...names.map(escapeWord)];
  const reply = asArray(await runtime.run(scripts.flow_stats, [runtime.keys.queues], args, { count: 0 }), "flow_stats");
  const out: Record<string, FlowStats> = {};
  names.forEach((name, k) => {
    const [locksHeld = 0, waiting = 0, deferred = 0] = asArray(reply[k] ?? [], "flow_stats").map(asNumber);
    out[name] = { locksHeld, waiting, deferred };
  });
  return out;
}
