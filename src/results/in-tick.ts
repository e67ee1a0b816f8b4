// Results in a tick (tick/capability.ts): the results of jobs kept or
// awaited, and the ctx.progress values not sent yet, ride on every step's
// and finish's acks as their results trailer (lib/results/keep-results.lua).
import type { ResultsRuntime } from "./runtime.js";
import type { Capability } from "../tick/capability.js";
import type { AckTrailers, Outcome } from "../tick/passes/ack.js";
import { takeProgress } from "./progress.js";
import { needsSection, resultSection } from "./record.js";
import type { ResultSettings } from "./settings.js";

export const resultsCapability = (runtime: ResultsRuntime): Capability => ({
  name: "results",
  forTick: () => ({
    ackTrailers: (outcomes, inAckOrder) =>
      resultsTrailer(outcomes, inAckOrder, runtime.results, takeProgress(runtime.progress)),
  }),
});

/** The acks' results trailer: none when no result is kept or awaited and no progress waits. */
export function resultsTrailer(
  outcomes: Outcome[],
  inAckOrder: Outcome[],
  settings: ResultSettings,
  progress: [string, string][] = [],
): AckTrailers {
  if (!needsSection(outcomes, settings, progress)) return {};
  const results = resultSection(inAckOrder, settings, progress);
  return results ? { results } : {};
}
