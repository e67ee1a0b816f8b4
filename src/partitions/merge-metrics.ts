// tq.metrics.query over partitions: each partition answers the same range
// and steps (the facade fixes untilMs before asking), so points add up step
// by step; percentiles come again from the summed buckets.
import { percentilesOf } from "../metrics/query.js";
import type {
  JobMetricsPoint,
  JobMetricsSeries,
  MetricsResult,
  QueueMetricsSeries,
  WaitMetricsPoint,
} from "../metrics/types.js";

const addBuckets = (a: number[], b: number[]) => a.map((v, i) => v + (b[i] ?? 0));

function addJobPoint(a: JobMetricsPoint, b: JobMetricsPoint): JobMetricsPoint {
  const buckets = addBuckets(a.buckets, b.buckets);
  return {
    atMs: a.atMs,
    runs: a.runs + b.runs,
    failures: a.failures + b.failures,
    durationMsSum: a.durationMsSum + b.durationMsSum,
    buckets,
    ...percentilesOf(buckets),
  };
}

function addWaitPoint(a: WaitMetricsPoint, b: WaitMetricsPoint): WaitMetricsPoint {
  const buckets = addBuckets(a.buckets, b.buckets);
  return {
    atMs: a.atMs,
    waits: a.waits + b.waits,
    waitMsSum: a.waitMsSum + b.waitMsSum,
    buckets,
    ...percentilesOf(buckets),
  };
}

function mergeSeries<S extends { points: P[]; total: P }, P>(
  all: S[][],
  keyOf: (s: S) => string,
  add: (a: P, b: P) => P,
  also?: (into: S, from: S) => void,
): S[] {
  const byKey = new Map<string, S>();
  for (const list of all)
    for (const s of list) {
      const into = byKey.get(keyOf(s));
      if (!into) {
        byKey.set(keyOf(s), { ...s, points: [...s.points] });
        continue;
      }
      into.total = add(into.total, s.total);
      into.points = into.points.map((p, i) => (s.points[i] ? add(p, s.points[i]!) : p));
      also?.(into, s);
    }
  return [...byKey.keys()].sort().map((k) => byKey.get(k)!);
}

export function mergeMetrics(all: MetricsResult[]): MetricsResult {
  const first = all[0]!;
  return {
    ...first,
    nowMs: Math.max(...all.map((r) => r.nowMs)),
    jobs: mergeSeries<JobMetricsSeries, JobMetricsPoint>(
      all.map((r) => r.jobs),
      (s) => s.name,
      addJobPoint,
    ),
    queues: mergeSeries<QueueMetricsSeries, WaitMetricsPoint>(
      all.map((r) => r.queues),
      (s) => s.queue,
      addWaitPoint,
      (into, from) => void (into.latencyMs = Math.max(into.latencyMs, from.latencyMs)),
    ),
  };
}
