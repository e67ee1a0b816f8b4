// The fixed histogram buckets of run times and waits, in ms. lib/metrics/record-runs.lua
// holds the same list (test/unit/metrics-buckets.test.ts compares them): a
// count lands in the first bucket whose bound is at least the value, or past
// the last one (+Inf).

/** Upper bounds, in ms, of the duration and wait buckets; one more bucket (+Inf) holds the rest. */
export const BUCKET_BOUNDS_MS: readonly number[] = [
  5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 300_000, 900_000, 3_600_000,
];

/** Buckets a histogram has: one per bound, then +Inf. */
export const BUCKET_COUNT = BUCKET_BOUNDS_MS.length + 1;

/**
 * The q-quantile (0 < q ≤ 1) of a histogram of non-cumulative bucket counts,
 * interpolated linearly inside the bucket it falls in (from the bucket's lower
 * bound, 0 for the first, to its upper bound), as Prometheus'
 * histogram_quantile does. In the +Inf bucket it answers the last finite bound.
 * Null for an empty histogram.
 */
export function quantileOf(counts: readonly number[], q: number): number | null {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (let k = 0; k < counts.length; k++) {
    const here = counts[k] ?? 0;
    if (here > 0 && below + here >= rank) {
      const upper = BUCKET_BOUNDS_MS[k];
      if (upper === undefined) return BUCKET_BOUNDS_MS[BUCKET_BOUNDS_MS.length - 1] ?? null;
      const lower = k === 0 ? 0 : (BUCKET_BOUNDS_MS[k - 1] ?? 0);
      return lower + (upper - lower) * ((rank - below) / here);
    }
    below += here;
  }
  return BUCKET_BOUNDS_MS[BUCKET_BOUNDS_MS.length - 1] ?? null;
}
