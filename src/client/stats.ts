import { flowStatsArgs, flowStatsFrom } from "../flow/stats.js";
import { orderedStatsFrom } from "../ordered/stats.js";
import { asArray, asNumber } from "../redis/adapter.js";
import { evictionWarning, learnEvictionPolicy, type Runtime } from "../tick/runtime.js";
import { scripts } from "../lua/index.js";
import type { RedisReply, Stats } from "../types.js";
import { heartbeatWarnings } from "../tick/warnings.js";

/** A flat [field, value, …] reply as a record. */
export function pairs(reply: RedisReply | undefined, what: string): Record<string, number> {
  const flat = asArray(reply ?? [], what);
  const out: Record<string, number> = {};
  for (let i = 0; i < flat.length; i += 2) out[String(flat[i])] = asNumber(flat[i + 1]);
  return out;
}

export async function readStats(runtime: Runtime): Promise<Stats> {
  // One call: a dashboard refresh costs one script run, whatever is declared.
  const names = Object.keys(runtime.jobs);
  const orderedNames = runtime.orderedNames;
  const args = [...flowStatsArgs(names), orderedNames.length, ...orderedNames];
  const reply = asArray(await runtime.run(scripts.stats, [runtime.keys.queues, runtime.keys.ticks], args, { count: 0 }), "stats");
  const flow = flowStatsFrom(reply[15], names);
  const ordered = orderedStatsFrom(reply[16], orderedNames);
  const queues = pairs(reply[8], "stats");
  const policy = String(reply[9] ?? "");
  learnEvictionPolicy(runtime, policy);
  const beats = pairs(reply[12], "stats");
  const served: Record<string, number> = {};
  for (const [field, ms] of Object.entries(beats)) if (field.startsWith("queue:")) served[field.slice(6)] = ms;
  const paused = asArray(reply[13] ?? [], "stats").map(String).sort();
  const lastTickAt = beats.tick ?? null;
  const warning = evictionWarning(policy);
  const warnings = [
    ...heartbeatWarnings({ nowMs: asNumber(reply[11]), lastTickAt, queues, served, paused: new Set(paused), due: asNumber(reply[14]) }),
    ...(warning ? [warning] : []),
  ];
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
    paused,
    lastTickAt,
    evictionPolicy: policy,
    warnings,
    ordered,
    flow,
    schedules: asNumber(reply[10]),
  };
}
