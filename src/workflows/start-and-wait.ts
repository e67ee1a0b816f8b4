// tq.workflows.startAndWait: a run started by the tick that runs it. The tick's begin
// (begin.lua's starts) creates the run and claims it in one call, so a lone run pays no start
// call of its own, and the tick hands back the run's output once the commit that ended it was
// applied, so the caller reads nothing after it. Whatever that tick left (its budget ran out,
// the run sleeps or waits, it lost its lease, Redis was restarted) `result` with drive goes on
// from, as a plain start would.
import { newJid } from "../job/codec.js";
import type { WorkflowsRuntime } from "./runtime.js";
import type { Commit } from "./execute.js";

/** A run's start as begin.lua creates it (workflow_start_bulk's fields). */
export interface StartOfTick {
  id: string;
  name: string;
  input: string;
  version: number;
}

/** What one tick carries for startAndWait, and what it learns for it. */
export interface TickStarts {
  starts: StartOfTick[];
  /** begin's answer: Redis was full (nothing created), or the name each id holds; unset when begin did not say. */
  started?: { full: boolean; holders: string[] };
  /** The output JSON of each started run whose ending commit Redis applied in this tick. */
  outputs: Map<string, string>;
}

const byRuntime = new WeakMap<WorkflowsRuntime, Map<string, TickStarts>>();

function handoffs(runtime: WorkflowsRuntime): Map<string, TickStarts> {
  let map = byRuntime.get(runtime);
  if (!map) {
    map = new Map();
    byRuntime.set(runtime, map);
  }
  return map;
}

/** The starts a tick of this id carries (none for every tick but startAndWait's). */
export function startsOfTick(runtime: WorkflowsRuntime, tickId: string): TickStarts | undefined {
  return byRuntime.get(runtime)?.get(tickId);
}

/** Notes an applied commit: a started run's output, once its completion is committed. */
export function noteCommitted(handoff: TickStarts | undefined, commit: Commit): void {
  if (handoff && commit.disposition === "d" && handoff.starts.some((s) => s.id === commit.id))
    handoff.outputs.set(commit.id, commit.extra);
}

/** Runs `tick` under a fresh tick id whose begin carries `start`; the handoff tells what it learned. */
export async function tickWithStart(
  runtime: WorkflowsRuntime,
  start: StartOfTick,
  tick: (tickId: string) => Promise<unknown>,
): Promise<TickStarts> {
  const tickId = newJid().slice(0, 16);
  const handoff: TickStarts = { starts: [start], outputs: new Map() };
  const map = handoffs(runtime);
  map.set(tickId, handoff);
  try {
    await tick(tickId);
  } finally {
    map.delete(tickId);
  }
  return handoff;
}
