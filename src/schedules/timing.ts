// When a schedule's slots fall. Lua has no cron parser, so the tick
// computes slots here (croner: time zones, DST, seconds) and Redis only
// claims them. Every deployment computes the same slots from the same spec,
// which is what lets a slot's jid ("name:slot") be claimed exactly once.
import { Cron } from "croner";

export interface Timing {
  /** The first slot strictly after `ms`; null when there is none (a pattern whose years are past). */
  after(ms: number): number | null;
  /** Up to `n` slots in [from, to] — the most recent ones — oldest first. */
  latest(n: number, from: number, to: number): number[];
}

/** Throws croner's own error for a bad expression or time zone. */
export function cronTiming(pattern: string, timezone: string | undefined): Timing {
  const cron = new Cron(pattern, timezone === undefined ? {} : { timezone });
  const after = (ms: number): number | null => cron.nextRun(new Date(ms))?.getTime() ?? null;
  return {
    after,
    latest(n, from, to) {
      // Walk forward first: a tick that is on time finds one or two slots.
      const found: number[] = [];
      for (let t = after(from - 1); t !== null && t <= to; t = after(t)) {
        if (found.length === n) {
          // More than n are due (a long gap): ask croner for the last n directly.
          return cron.previousRuns(n, new Date(to + 1)).map((d) => d.getTime()).filter((s) => s >= from).reverse();
        }
        found.push(t);
      }
      return found;
    },
  };
}

/** Multiples of `every` since the epoch: deployments agree on them whenever they start. */
export function everyTiming(every: number): Timing {
  return {
    after: (ms) => (Math.floor(ms / every) + 1) * every,
    latest(n, from, to) {
      const last = Math.floor(to / every) * every;
      const first = Math.max(Math.ceil(from / every) * every, last - (n - 1) * every);
      const out: number[] = [];
      for (let t = first; t <= last; t += every) out.push(t);
      return out;
    },
  };
}
