// tq.schedules(): this deployment's declaration merged with what Redis holds
// (one read-only script), so an operator sees each schedule's next and last
// run, and also the schedules another deployment declared or left behind.
import { asArray, asNumber } from "../redis/adapter.js";
import type { Runtime } from "../tick/runtime.js";
import { scripts } from "../lua/index.js";
import type { RedisReply } from "../types.js";
import type { ScheduleInfo, ScheduleSpec } from "./types.js";

function pairs(reply: RedisReply | undefined): Map<string, string> {
  const flat = asArray(reply ?? [], "recurring_list");
  const out = new Map<string, string>();
  for (let i = 0; i < flat.length; i += 2) out.set(String(flat[i]), String(flat[i + 1]));
  return out;
}

/** A spec another deployment stored: its JSON, or its text when another client wrote something else there. */
function storedSpec(text: string | undefined): ScheduleSpec {
  try {
    return JSON.parse(text ?? "null") as ScheduleSpec;
  } catch {
    return text as unknown as ScheduleSpec;
  }
}

const dateOf = (ms: string | undefined): Date | null => (ms === undefined ? null : new Date(asNumber(ms)));

export async function listRecurring(runtime: Runtime): Promise<ScheduleInfo[]> {
  const reply = asArray(await runtime.run(scripts.recurring_list, [`${runtime.prefix}schedules:due`], [], { count: 0 }), "recurring_list");
  const [due, specs, fps, lasts, orphans] = reply.map(pairs) as [Map<string, string>, ...Map<string, string>[]];
  const names = new Set([...runtime.recurring.byName.keys(), ...specs!.keys()]);
  return [...names].sort().map((name) => {
    const declared = runtime.recurring.byName.get(name);
    const stored = specs!.get(name);
    return {
      name,
      spec: declared?.spec ?? storedSpec(stored),
      declared: declared !== undefined,
      inSync: declared !== undefined && fps!.get(name) === `${declared.timingFp} ${declared.fp}`,
      nextRunAt: dateOf(due.get(name)),
      lastRunAt: dateOf(lasts!.get(name)),
      lastJid: lasts!.has(name) ? `${name}:${lasts!.get(name)}` : null,
      orphanedAt: dateOf(orphans!.get(name)),
    };
  });
}
