// What one workflow call (workflow_tick.lua, or finish.lua for the last commits) carries at most. At
// `appendfsync always` each call is a write Redis fsyncs before it answers, so the calls a step set the
// floor of a step's cost: a call carries the commits of every run a tick holds (its batch: 50 by default,
// 100 in the benches) when they are small, and is cut by their bytes when they are not, so no call holds
// Redis long.
import type { Commit } from "./execute.js";

/**
 * Runs one call commits and claims at most, together (at most CLAIM_RUNS of them claimed). 100 no-op
 * commits take about 2 ms of Redis CPU (18 µs a step, `npx tsx bench/workflow-rate.ts --ref main --fsync
 * always`), within chaos' 20 ms bound on a script; at 20 a call, the fsync of each call was most of a
 * step's cost at `appendfsync always`.
 */
export const CALL_RUNS = 100;

/**
 * Runs one call claims at most (begin's claim too). A claim reads a run's hash, its records' names and the
 * records it carries, and a woken run its parked steps: several times a commit's work, and the chaos suite's
 * event to 20,000 waiting runs makes every call claim. Claims stay at 20 a call, as before commits grew.
 */
export const CLAIM_RUNS = 20;

/** Characters of step records and outputs one call commits at most (a first commit always goes, whatever its size). */
export const CALL_CHARS = 1024 * 1024;

/** The characters a commit sends of records and output: what its call writes. */
export function commitChars(commit: Commit): number {
  let chars = commit.extra.length;
  for (const s of commit.steps) chars += s.record.length;
  return chars;
}

/** How many of `queued`, from the first, one call carries: at most CALL_RUNS, and CALL_CHARS past the first. */
export function callShare<T extends { commit: Commit }>(queued: readonly T[]): number {
  let chars = 0;
  let n = 0;
  for (const q of queued) {
    if (n === CALL_RUNS) break;
    chars += commitChars(q.commit);
    if (n > 0 && chars > CALL_CHARS) break;
    n++;
  }
  return n;
}
