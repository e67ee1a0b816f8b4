// Results in a tick (tick/capability.ts): the results of jobs kept or
// awaited, and the ctx.progress values not sent yet, ride on every step's
// and finish's acks as their results trailer (lib/results/keep-results.lua);
// progress rides on the lease's extends too, put back if one fails.
import type { ResultsRuntime } from "./runtime.js";
import type { Capability, JobHooks } from "../tick/capability.js";
import type { AckTrailers, Outcome } from "../tick/passes/ack.js";
import { reportProgress, takeProgress } from "./progress.js";
import { needsSection, resultSection } from "./record.js";
import type { ResultSettings } from "./settings.js";

export const resultsCapability = (runtime: ResultsRuntime): Capability => {
  const buffer = runtime.progress;
  const job: JobHooks = { progress: (jid, value) => reportProgress(buffer, jid, value) };
  return {
    name: "results",
    forTick() {
      // What the extend in flight carries (extends go one at a time), put back if it fails.
      let sent: [string, string][] = [];
      return {
        job,
        ackTrailers: (outcomes, inAckOrder) =>
          resultsTrailer(outcomes, inAckOrder, runtime.results, takeProgress(buffer)),
        extendArgs() {
          sent = takeProgress(buffer);
          return sent.length === 0 ? {} : { progress: sent.map(([jid, value]) => ({ jid, value })) };
        },
        extended(reply) {
          // A value reported since is newer: it stays.
          if (!reply) for (const [jid, value] of sent) if (!buffer.has(jid)) buffer.set(jid, value);
        },
      };
    },
  };
};

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
