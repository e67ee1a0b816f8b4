// Percentiles of latency samples, and the table row they make.
export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export interface LatencyRow {
  runtime: string;
  trigger: string;
  samples: number[];
}

export function latencyTable(rows: LatencyRow[]) {
  return rows.map((r) => ({
    runtime: r.runtime,
    "starts by": r.trigger,
    samples: r.samples.length,
    "p50 ms": Math.round(percentile(r.samples, 50)),
    "p99 ms": Math.round(percentile(r.samples, 99)),
    "max ms": Math.round(Math.max(...r.samples)),
  }));
}

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `done()` or `ms` passed; true if done. */
export async function until(done: () => boolean | Promise<boolean>, ms: number, everyMs = 5): Promise<boolean> {
  for (const t = Date.now(); Date.now() - t < ms; await pause(everyMs)) if (await done()) return true;
  return done();
}
