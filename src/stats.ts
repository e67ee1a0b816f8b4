import { readOrderedStats } from "./ordered/stats.js";
import { asArray, asNumber } from "./redis.js";
import { evictionWarning, learnEvictionPolicy, type Runtime } from "./runtime.js";
import { scripts } from "./scripts/index.js";
import type { Stats } from "./types.js";

export async function readStats(runtime: Runtime): Promise<Stats> {
  const [core, ordered] = await Promise.all([
    runtime.run(scripts.stats, [runtime.keys.queues, runtime.keys.ticks], [], { count: 0 }),
    readOrderedStats(runtime),
  ]);
  const reply = asArray(core, "stats");
  const sizes = asArray(reply[8] ?? [], "stats");
  const queues: Record<string, number> = {};
  for (let i = 0; i < sizes.length; i += 2) queues[String(sizes[i])] = asNumber(sizes[i + 1]);
  const policy = String(reply[9] ?? "");
  learnEvictionPolicy(runtime, policy);
  const warning = evictionWarning(policy);
  const warnings = warning ? [warning] : [];
  return {
    processed: asNumber(reply[0]),
    failed: asNumber(reply[1]),
    deadEvicted: asNumber(reply[2]),
    scheduled: asNumber(reply[3]),
    retry: asNumber(reply[4]),
    dead: asNumber(reply[5]),
    ticks: asNumber(reply[6]),
    inflight: asNumber(reply[7]),
    queues,
    evictionPolicy: String(reply[9] ?? ""),
    warnings,
    ordered,
    schedules: asNumber(reply[10]),
  };
}
