// The jobs every system runs: no-ops, or "realistic" jobs that sleep 0–100
// ms, drawn from a fixed seed (mulberry32) so every system and every run
// sleeps the same durations in the same order.
import { seededRng } from "./chaos/rng.js";

/** A job list: a count of no-ops, or the duration in ms of each sleeping job. */
export type Jobs = number | readonly number[];

export const jobCount = (jobs: Jobs) => (typeof jobs === "number" ? jobs : jobs.length);

/** The duration of job i, or 0 for a no-op. */
export const durationOf = (jobs: Jobs, i: number) => (typeof jobs === "number" ? 0 : jobs[i]!);

/** n whole durations, 0 to maxMs inclusive. */
export function durations(n: number, seed: number, maxMs = 100): number[] {
  const random = seededRng(seed);
  return Array.from({ length: n }, () => Math.floor(random() * (maxMs + 1)));
}

/** A job's work: nothing for a no-op (no timer), else a sleep. */
export const work = (ms: number): Promise<void> | undefined =>
  ms > 0 ? new Promise((r) => setTimeout(r, ms)) : undefined;

/** Jobs a second at `concurrency` slots if every slot were always busy. */
export const limitOf = (jobs: readonly number[], concurrency: number) =>
  (concurrency * 1000 * jobs.length) / jobs.reduce((sum, ms) => sum + ms, 0);
