// tq.workflows.startAndWait: a run started by the tick that runs it. The tick's begin
// (begin.lua's starts) creates the run and claims it in one call, so a lone run pays no start
// call of its own, and the tick hands back the run's output once the commit that ended it was
// applied, so the caller reads nothing after it. Whatever that tick left (its budget ran out,
// the run sleeps or waits, it lost its lease, Redis was restarted) `result` with drive goes on
// from, as a plain start would.
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
  start: StartOfTick;
  /** begin's answer: Redis was full (nothing created), or the name each id holds; unset when begin did not say. */
  started?: { full: boolean; holders: string[] };
  /** The run's output JSON, once Redis applied the commit that completed it in this tick. */
  output?: string;
}

/** By tick id (a fresh one each): the ticks startAndWait runs. */
export const tickStarts = new Map<string, TickStarts>();

/** Notes an applied commit: the started run's output, once its completion is committed. */
export function noteCommitted(handoff: TickStarts, commit: Commit): void {
  if (commit.disposition === "d" && commit.id === handoff.start.id) handoff.output = commit.extra;
}
