// When `every` slots fall: multiples of the interval, no parser needed.
// Cron slots come from the `cron` option's parser (cron.ts: croner), which
// the edge entries leave out unless given.
import type { Timing } from "./types.js";

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
