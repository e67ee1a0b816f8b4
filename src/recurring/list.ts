// tq.schedules(): this deployment's declaration merged with what Redis holds
// (one read-only script), so an operator sees each schedule's next and last
// run, and also the schedules another deployment declared or left behind.
import type { RecurringRuntime as Runtime } from "./runtime.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { ScheduleInfo, ScheduleSpec, Timing } from "./types.js";

/** A spec another deployment stored: its JSON, or its text when another client wrote something else there. */
function storedSpec(text: string | undefined): ScheduleSpec {
  try {
    return JSON.parse(text ?? "null") as ScheduleSpec;
  } catch {
    return text as unknown as ScheduleSpec;
  }
}

const dateOf = (ms: string | undefined): Date | null => (ms === undefined ? null : new Date(Number(ms)));

/** `next` and the slots after it by the declared timing, 3 in all. */
function nextRuns(timing: Timing | undefined, next: Date | null): Date[] {
  const out = next ? [next] : [];
  while (timing && out.length > 0 && out.length < 3) {
    const after = timing.after(out.at(-1)!.getTime());
    if (after === null) break;
    out.push(new Date(after));
  }
  return out;
}

export async function listRecurring(runtime: Runtime): Promise<ScheduleInfo[]> {
  const reply = await runCall(runtime, protocol.recurring_list, { due: `${runtime.prefix}schedules:due` }, {});
  const due = new Map(reply.due.map((d) => [d.name, d.slot]));
  const specs = new Map(reply.specs.map((d) => [d.name, d.spec]));
  const fps = new Map(reply.fps.map((d) => [d.name, d.fps]));
  const lasts = new Map(reply.lasts.map((d) => [d.name, d.slot]));
  const orphans = new Map(reply.orphans.map((d) => [d.name, d.since]));
  const paused = new Set(reply.paused);
  const names = new Set([...runtime.recurring.byName.keys(), ...specs.keys()]);
  return [...names].sort().map((name) => {
    const declared = runtime.recurring.byName.get(name);
    const stored = specs.get(name);
    return {
      name,
      spec: declared?.spec ?? storedSpec(stored),
      declared: declared !== undefined,
      inSync: declared !== undefined && fps.get(name) === `${declared.timingFp} ${declared.fp}`,
      nextRunAt: dateOf(due.get(name)),
      lastRunAt: dateOf(lasts.get(name)),
      lastJid: lasts.has(name) ? `${name}:${lasts.get(name)}` : null,
      orphanedAt: dateOf(orphans.get(name)),
      paused: paused.has(name),
      nextRuns: nextRuns(declared?.timing, dateOf(due.get(name))),
    };
  });
}
