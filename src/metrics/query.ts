// tq.metrics.query: one script call reads the minutes of the range (and each
// queue's latency); steps coarser than a minute are summed here.
import { TickqError } from "../errors.js";
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import type { Runtime } from "../tick/runtime.js";
import { BUCKET_BOUNDS_MS, quantileOf } from "./buckets.js";
import {
  addFields,
  addJobTally,
  addWaitTally,
  emptyJob,
  emptyTallies,
  emptyWait,
  type JobTally,
  type Tallies,
  type WaitTally,
} from "./fields.js";
import type { JobMetricsPoint, MetricsQuery, MetricsResult, Percentiles, WaitMetricsPoint } from "./types.js";

const MINUTE_MS = 60_000;
/** A week of minutes: a longer range is asked in parts (each minute is one HGETALL in one script run). */
export const MAX_QUERY_MINUTES = 7 * 24 * 60;

export async function queryMetrics(runtime: Runtime, query: MetricsQuery): Promise<MetricsResult> {
  const { sinceMinute, untilMinute, stepMinutes } = rangeOf(query, Date.now());
  const reply = await runCall(
    runtime,
    protocol.metrics,
    { queues: runtime.keys.queues },
    { sinceMinute, untilMinute, name: query.name ?? "", queue: query.queue ?? "", totals: false },
  );
  const steps = Math.floor((untilMinute - sinceMinute) / stepMinutes) + 1;
  const perStep: Tallies[] = Array.from({ length: steps }, emptyTallies);
  for (const { minute, fields } of reply.minutes) {
    const step = perStep[Math.floor((minute - sinceMinute) / stepMinutes)];
    if (step) addFields(fields, step);
  }
  const atOf = (k: number) => (sinceMinute + k * stepMinutes) * MINUTE_MS;
  const names = new Set<string>();
  const queueNames = new Set<string>(reply.latency.map((l) => l.queue));
  const orderedNames = new Set<string>();
  for (const step of perStep) {
    for (const name of step.jobs.keys()) names.add(name);
    for (const queue of step.queues.keys()) queueNames.add(queue);
    for (const name of step.ordered.keys()) orderedNames.add(name);
  }
  const waitSeries = (tallyOf: (step: Tallies) => WaitTally | undefined) => {
    const total = emptyWait();
    const points = perStep.map((step, k) => {
      const t = tallyOf(step) ?? emptyWait();
      addWaitTally(total, t);
      return waitPoint(atOf(k), t);
    });
    return { total: waitPoint(sinceMs, total), points };
  };
  const latency = new Map(reply.latency.map((l) => [l.queue, l.ms]));
  const sinceMs = sinceMinute * MINUTE_MS;
  return {
    sinceMs,
    untilMs: (untilMinute + 1) * MINUTE_MS,
    stepMs: stepMinutes * MINUTE_MS,
    nowMs: reply.nowMs,
    bucketBoundsMs: BUCKET_BOUNDS_MS,
    jobs: [...names].sort().map((name) => {
      const total = emptyJob();
      const points = perStep.map((step, k) => {
        const t = step.jobs.get(name) ?? emptyJob();
        addJobTally(total, t);
        return jobPoint(atOf(k), t);
      });
      return { name, total: jobPoint(sinceMs, total), points };
    }),
    queues: [...queueNames]
      .sort()
      .map((queue) => ({ queue, latencyMs: latency.get(queue) ?? 0, ...waitSeries((step) => step.queues.get(queue)) })),
    ordered: [...orderedNames].sort().map((name) => ({ name, ...waitSeries((step) => step.ordered.get(name)) })),
  };
}

function rangeOf(query: MetricsQuery, nowMs: number) {
  if (typeof query !== "object" || query === null) {
    throw new TickqError("BAD_ARGS", "metrics.query needs { sinceMs, untilMs?, name?, queue?, stepMs? }");
  }
  const { sinceMs, untilMs = nowMs, stepMs = MINUTE_MS, name, queue } = query;
  for (const [key, value] of Object.entries({ sinceMs, untilMs, stepMs })) {
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new TickqError("BAD_ARGS", `metrics.query: ${key} must be a number of ms ≥ 0, got ${String(value)}`);
    }
  }
  for (const [key, value] of Object.entries({ name, queue })) {
    if (value !== undefined && (typeof value !== "string" || value === "")) {
      throw new TickqError(
        "BAD_ARGS",
        `metrics.query: ${key} must be a non-empty string, got ${JSON.stringify(value)}`,
      );
    }
  }
  if (stepMs < MINUTE_MS || stepMs % MINUTE_MS !== 0) {
    throw new TickqError("BAD_ARGS", `metrics.query: stepMs must be a multiple of 60000, got ${stepMs}`);
  }
  if (untilMs < sinceMs) {
    throw new TickqError("BAD_ARGS", `metrics.query: untilMs (${untilMs}) is before sinceMs (${sinceMs})`);
  }
  const sinceMinute = Math.floor(sinceMs / MINUTE_MS);
  // untilMs is the end, not in the range: the minute that starts at it is left out.
  const untilMinute = Math.max(sinceMinute, Math.ceil(untilMs / MINUTE_MS) - 1);
  if (untilMinute - sinceMinute + 1 > MAX_QUERY_MINUTES) {
    throw new TickqError(
      "BAD_ARGS",
      `metrics.query: a range covers at most ${MAX_QUERY_MINUTES} minutes (a week); ask for longer ones in parts`,
    );
  }
  return { sinceMinute, untilMinute, stepMinutes: stepMs / MINUTE_MS };
}

export function percentilesOf(buckets: readonly number[]): Percentiles {
  return { p50: quantileOf(buckets, 0.5), p95: quantileOf(buckets, 0.95), p99: quantileOf(buckets, 0.99) };
}

function jobPoint(atMs: number, t: JobTally): JobMetricsPoint {
  return {
    atMs,
    runs: t.runs,
    failures: t.failures,
    durationMsSum: t.durationMsSum,
    buckets: t.buckets,
    ...percentilesOf(t.buckets),
  };
}

function waitPoint(atMs: number, t: WaitTally): WaitMetricsPoint {
  return { atMs, waits: t.waits, waitMsSum: t.waitMsSum, buckets: t.buckets, ...percentilesOf(t.buckets) };
}
