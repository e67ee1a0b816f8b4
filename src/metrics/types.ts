// The public shapes of tq.metrics.

/** `tq.metrics.query()`'s question: a range of time, optionally one job name and one queue. */
export interface MetricsQuery {
  /** Only this job name's series, a plain or an ordered job's (default: every name that ran in the range). */
  name?: string;
  /** Only this queue's waits and latency (default: every queue). */
  queue?: string;
  /** Start of the range, epoch ms (rounded down to its minute). */
  sinceMs: number;
  /** End of the range, epoch ms, not included (default: now; the current minute is in). */
  untilMs?: number;
  /** Width of a point, a multiple of 60,000 ms (default 60,000: one point a minute). */
  stepMs?: number;
}

/** Percentiles of a histogram, in ms, interpolated inside their bucket; null when nothing was counted. */
export interface Percentiles {
  /** The median, ms. */
  p50: number | null;
  /** The 95th percentile, ms. */
  p95: number | null;
  /** The 99th percentile, ms. */
  p99: number | null;
}

/** Runs of one job name in one step (or over the whole range). */
export interface JobMetricsPoint extends Percentiles {
  /** Start of the step, epoch ms. */
  atMs: number;
  /** Runs that finished in the step: succeeded or failed. */
  runs: number;
  /** Runs that failed (retried, dead or discarded). */
  failures: number;
  /** Run time summed over the runs, ms. */
  durationMsSum: number;
  /** Runs per duration bucket (not cumulative), in the order of `bucketBoundsMs`, then +Inf. */
  buckets: number[];
}

/** Waits of one queue in one step (or over the whole range): from enqueue (or retry, or due time) to start. */
export interface WaitMetricsPoint extends Percentiles {
  /** Start of the step, epoch ms. */
  atMs: number;
  /** Jobs of the queue that ran and finished in the step. */
  waits: number;
  /** Their waits summed, ms. */
  waitMsSum: number;
  /** Waits per bucket (not cumulative), in the order of `bucketBoundsMs`, then +Inf. */
  buckets: number[];
}

/** One job name's series. */
export interface JobMetricsSeries {
  /** The job name. */
  name: string;
  /** The whole range in one point (its `atMs` is the range's start). */
  total: JobMetricsPoint;
  /** One point per step, oldest first, steps with no runs included as zeros. */
  points: JobMetricsPoint[];
}

/** One queue's series, with its latency now. */
export interface QueueMetricsSeries {
  /** The queue's name. */
  queue: string;
  /** Age of the oldest waiting job, ms, read when asked (0 for an empty queue). */
  latencyMs: number;
  /** The whole range in one point (its `atMs` is the range's start). */
  total: WaitMetricsPoint;
  /** One point per step, oldest first, steps with no waits included as zeros. */
  points: WaitMetricsPoint[];
}

/** One ordered job's waits: from an id's due time (its enqueue, retry or arrival) to the start of its run. */
export interface OrderedMetricsSeries {
  /** The ordered job's name. */
  name: string;
  /** The whole range in one point (its `atMs` is the range's start). */
  total: WaitMetricsPoint;
  /** One point per step, oldest first, steps with no runs included as zeros. */
  points: WaitMetricsPoint[];
}

/** `tq.metrics.query()`'s answer. */
export interface MetricsResult {
  /** The range as used, whole minutes: from `sinceMs` up to, not with, `untilMs`; and the step. */
  sinceMs: number;
  /** The end of the range, not in it. */
  untilMs: number;
  /** The width of a point, ms. */
  stepMs: number;
  /** Redis' time when read. */
  nowMs: number;
  /** Upper bounds of the buckets, ms; each histogram has one more bucket (+Inf). */
  bucketBoundsMs: readonly number[];
  /** One series per job name that ran in the range (or the one asked), by name. */
  jobs: JobMetricsSeries[];
  /** One series per queue (or the one asked), by name. */
  queues: QueueMetricsSeries[];
  /** Waits of ordered ids, one series per ordered job name that ran in the range (or the `name` asked), by name; their runs are in `jobs`. */
  ordered: OrderedMetricsSeries[];
}

/** `tq.metrics`: metrics kept in Redis (docs/operate/metrics.md). */
export interface MetricsApi {
  /** Series per job name and per queue over a range, with counts and p50/p95/p99. */
  query(query: MetricsQuery): Promise<MetricsResult>;
  /** Counters, gauges and histograms in Prometheus' text exposition format 0.0.4 (what `GET /metrics` serves). */
  prometheus(): Promise<string>;
}
