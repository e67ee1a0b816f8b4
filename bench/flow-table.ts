// The table of bench/flow.ts: rates, paired ratios against each scenario's
// baseline, round trips, Redis commands, script µs and Redis CPU µs a job,
// and the two target lines.
import type { FlowBenchOptions, FlowFigures, Scenario } from "./flow-types.js";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The median, over runs, of each run's ratio: a run's pair is measured back to back, so a busy machine slows both. */
const pairedRatio = (a: number[], b: number[]) => median(a.map((x, i) => x / b[i]!));

export function printFlow(o: FlowBenchOptions, f: FlowFigures): void {
  const pct = (x: number) => `${Math.round(x * 100)} %`;
  const span = (xs: number[]) => `${Math.min(...xs)}–${Math.max(...xs)}`;
  const row = (scenario: string, key: Scenario, base?: Scenario) => ({
    scenario,
    "jobs/s (median)": median(f[key]),
    "min–max": span(f[key]),
    "vs baseline (paired)": base ? pct(pairedRatio(f[key], f[base])) : "baseline",
    "round trips/job": (f.roundTrips[key] ?? 0).toFixed(3),
    "Redis cmds/job": (f.commands[key] ?? 0).toFixed(2),
    "script µs/job": median(f.scriptUs[key]).toFixed(1),
    "Redis CPU µs/job": median(f.cpuUs[key]).toFixed(1),
  });
  console.log(
    `\nFlow control (private Redis, batch ${o.batch}; ${o.runs} runs of (a), ${o.runs * 2} of (b); no-op jobs):`,
  );
  console.table([
    row(`(a) ${o.jobs} plain jobs (the same, no unique)`, "plain"),
    row(`(a) ${o.jobs} while-executing, distinct keys`, "exclusive", "plain"),
    row(`(b) ${o.plain} plain jobs alone`, "alone"),
    row(`(b) ${o.plain} plain behind ${o.duplicates} duplicates of a busy key, enqueued`, "enqueued", "alone"),
    row(`(b) ${o.plain} plain behind ${o.duplicates} pushed into the queue (cold)`, "cold", "alone"),
    row(`(b) ${o.plain} plain, the ${o.duplicates} duplicates parked`, "parked", "alone"),
  ]);
  const us = (key: Scenario) => `${median(f.scriptUs[key]).toFixed(1)} µs`;
  const cpu = (key: Scenario) => `${median(f.cpuUs[key]).toFixed(1)} µs`;
  console.log(
    `(a) while-executing / plain jobs/s: ${pct(pairedRatio(f.exclusive, f.plain))} (target ≥ 70 %); ` +
      `Redis script time a job: ${us("exclusive")} against ${us("plain")}; Redis CPU a job: ${cpu("exclusive")} against ${cpu("plain")}`,
  );
  console.log(
    `(b) plain behind a busy key's duplicates / alone, jobs/s: ${pct(pairedRatio(f.enqueued, f.alone))} enqueued (target ≥ 50 %); ` +
      `${pct(pairedRatio(f.cold, f.alone))} pushed into the queue (cold), ${pct(pairedRatio(f.parked, f.alone))} once parked`,
  );
}
