// The realistic run of `npm run bench`: N jobs sleeping 0–100 ms (fixed
// seed, bench/jobs.ts), concurrency 50, tickq at batch 100 and 50 against
// BullMQ on the same Redis, and an in-memory pool with no Redis at all
// (bench/systems/pool.ts: the ceiling this machine's timers and the last
// wave of jobs leave). The limit is concurrency ÷ mean duration: what
// a pool whose every slot is always busy would reach. Each configuration
// drains N/10 jobs unmeasured first, then N jobs `runs` times, then N more
// through the RESP-counting proxy (bench/wire.ts) for wire commands a job.
import { limitOf } from "./jobs.js";
import type { DrainOptions, SystemFactory } from "./systems/types.js";
import { wireCounter } from "./wire.js";

export const CONCURRENCY = 50;

export interface Setup {
  label: string;
  factory: SystemFactory;
  drain: DrainOptions;
}

export interface RealisticRow {
  label: string;
  /** jobs/s of each run */
  rates: number[];
  roundTripsPerJob?: number;
  wirePerJob: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function measureRealistic(
  setup: Setup,
  redisUrl: string,
  jobs: readonly number[],
  runs: number,
): Promise<RealisticRow> {
  const n = jobs.length;
  const tag = `${setup.label.replace(/\W+/g, "-")}-${Date.now()}`;
  const row: RealisticRow = { label: setup.label, rates: [], wirePerJob: 0 };
  const system = await setup.factory(redisUrl, `real-${tag}`);
  try {
    const warmUp = jobs.slice(0, Math.max(100, Math.floor(n / 10)));
    await system.enqueue(warmUp);
    await system.drain(warmUp.length, setup.drain);
    let roundTrips = 0;
    for (let run = 0; run < runs; run++) {
      await system.enqueue(jobs);
      const t = performance.now();
      const drained = await system.drain(n, setup.drain);
      row.rates.push(Math.round((n / (performance.now() - t)) * 1000));
      if (drained.roundTrips === undefined) roundTrips = NaN;
      else roundTrips += drained.roundTrips;
    }
    if (!Number.isNaN(roundTrips)) row.roundTripsPerJob = roundTrips / (n * runs);
  } finally {
    await system.close();
  }
  const wire = await wireCounter(redisUrl);
  const counted = await setup.factory(wire.url, `real-wire-${tag}`);
  try {
    await counted.enqueue(jobs);
    const before = wire.commands();
    await counted.drain(n, setup.drain);
    row.wirePerJob = (wire.commands() - before) / n;
  } finally {
    await counted.close();
    await wire.close();
  }
  return row;
}

export function printRealistic(rows: RealisticRow[], jobs: readonly number[], runs: number, seed: number): void {
  const limit = limitOf(jobs, CONCURRENCY);
  const meanMs = (CONCURRENCY * 1000) / limit;
  console.log(
    `\nRealistic: ${jobs.length} jobs sleeping 0–100 ms (seed ${seed}, mean ${meanMs.toFixed(1)} ms), concurrency ${CONCURRENCY}, ` +
      `${runs} runs each; limit = concurrency ÷ mean duration = ${Math.round(limit)} jobs/s`,
  );
  console.table(
    rows.map((r) => ({
      system: r.label,
      "jobs/s (median)": median(r.rates),
      "min–max": `${Math.min(...r.rates)}–${Math.max(...r.rates)}`,
      "% of limit": `${((median(r.rates) / limit) * 100).toFixed(1)} %`,
      "round trips/job":
        r.roundTripsPerJob === undefined ? `≤ ${r.wirePerJob.toFixed(3)}` : r.roundTripsPerJob.toFixed(4),
      "wire cmds/job": r.wirePerJob.toFixed(3),
    })),
  );
  console.log(
    "round trips/job: tickq's report.roundTrips summed ÷ jobs; BullMQ's is its wire cmds/job (an upper bound: a round trip carries ≥ 1 command)",
  );
  const references = rows.filter((r) => !r.label.startsWith("tickq"));
  for (const r of rows.filter((r) => r.label.startsWith("tickq"))) {
    console.log(
      `${r.label} jobs/s ÷ ${references.map((o) => `${o.label}: ${(median(r.rates) / median(o.rates)).toFixed(2)}×`).join(", ")}`,
    );
  }
}
