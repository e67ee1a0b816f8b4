// "tickq/cron": cron expressions parsed by croner (time zones, DST, seconds).
// Lua has no cron parser, so the tick computes slots here and Redis only
// claims them; every deployment computes the same slots from the same spec,
// which is what lets a slot's jid ("name:slot") be claimed exactly once.
// Its own entry because croner is ~10 KB gzipped of a Worker: createTickq
// from "tickq" passes it by default; tickqWorker and tickqVercel take it
// as their `cron` option, so a Worker without cron schedules ships none.
/**
 * The cron parser (croner) for `cron` schedules, as its own entry so a bundle without cron schedules leaves it out.
 *
 * @module tickq/cron
 */
import { Cron } from "croner";
import type { CronParser } from "./types.js";

/**
 * Throws croner's own error for a bad expression or time zone.
 * @example
 * import { cron } from "tickq/cron";
 * export default tickqWorker({ jobs, cron, schedules: { nightly: { cron: "0 3 * * *", job: "report" } } });
 */
export const cron: CronParser = (pattern, timezone) => {
  const parsed = new Cron(pattern, timezone === undefined ? {} : { timezone });
  const after = (ms: number): number | null => parsed.nextRun(new Date(ms))?.getTime() ?? null;
  return {
    after,
    latest(n, from, to) {
      // Walk forward first: a tick that is on time finds one or two slots.
      const found: number[] = [];
      for (let t = after(from - 1); t !== null && t <= to; t = after(t)) {
        if (found.length === n) {
          // More than n are due (a long gap): ask croner for the last n directly.
          return parsed
            .previousRuns(n, new Date(to + 1))
            .map((d) => d.getTime())
            .filter((s) => s >= from)
            .reverse();
        }
        found.push(t);
      }
      return found;
    },
  };
};

export type { CronParser, Timing } from "./types.js";
