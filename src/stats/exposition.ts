// GET /metrics: Prometheus' text exposition format 0.0.4, from stats() (the
// counters and sizes Sidekiq keeps) and the all-time metric totals
// (lib/metrics/record-runs.lua) with each queue's latency, read in two script
// calls. Times are in seconds, as Prometheus' conventions ask.
import * as protocol from "../protocol/index.js";
import { runCall } from "../protocol/run.js";
import { readStats, type StatsRuntime } from "./read.js";
import type { Stats } from "./types.js";
import { BUCKET_BOUNDS_MS } from "../metrics/buckets.js";
import {
  addFields,
  addJobTally,
  emptyTallies,
  type JobTally,
  type Tallies,
  type WaitTally,
} from "../metrics/fields.js";

/** Label values of job names not declared in `jobs` are folded into this one, so a scrape stays bounded. */
export const OTHER_NAME = "(other)";

export async function exposition(runtime: StatsRuntime): Promise<string> {
  const [stats, read] = await Promise.all([
    readStats(runtime),
    runCall(
      runtime,
      protocol.metrics,
      { queues: runtime.keys.queues },
      { sinceMinute: 1, untilMinute: 0, name: "", queue: "", totals: true },
    ),
  ]);
  const totals = addFields(read.totals, emptyTallies());
  // Ordered names are job names too (createTickq refuses one declared as both).
  const declared = new Set([...Object.keys(runtime.jobs), ...runtime.orderedNames]);
  return render(stats, bounded(totals, declared), read.latency);
}

// Names a tickq does not declare (a Sidekiq client may push any class) count under OTHER_NAME.
function bounded(totals: Tallies, declared: Set<string>): Tallies {
  const jobs = new Map<string, JobTally>();
  for (const [name, t] of totals.jobs) {
    const label = declared.has(name) ? name : OTHER_NAME;
    const into = jobs.get(label);
    if (into) addJobTally(into, t);
    else jobs.set(label, t);
  }
  return { jobs, queues: totals.queues, ordered: totals.ordered };
}

type Labels = Record<string, string>;
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
type Sample = [Labels, number];

function render(stats: Stats, totals: Tallies, latency: { queue: string; ms: number }[]): string {
  const out: string[] = [];
  const family = (name: string, type: string, help: string, samples: Sample[], suffix = "") => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) out.push(`${name}${suffix}${labelText(labels)} ${numberText(value)}`);
  };
  const jobs = [...totals.jobs].sort(([a], [b]) => a.localeCompare(b));
  const queues = [...totals.queues].sort(([a], [b]) => a.localeCompare(b));
  const perJob = (pick: (t: JobTally) => number): Sample[] => jobs.map(([name, t]) => [{ name }, pick(t)]);

  family("tickq_processed_total", "counter", "Jobs that ran, succeeded or failed (Sidekiq's stat:processed).", [
    [{}, stats.processed],
  ]);
  family("tickq_failed_total", "counter", "Jobs whose run failed (Sidekiq's stat:failed).", [[{}, stats.failed]]);
  // A cancelled or expired job is no run: counted here, never in runs or failures.
  family("tickq_cancelled_total", "counter", "Jobs and ordered runs ended by a cancel (stat:cancelled).", [
    [{}, stats.cancelled],
  ]);
  family("tickq_expired_total", "counter", "Jobs never started because their expiry passed (stat:expired).", [
    [{}, stats.expired],
  ]);
  family(
    "tickq_job_runs_total",
    "counter",
    "Runs per job name, succeeded or failed.",
    perJob((t) => t.runs),
  );
  family(
    "tickq_job_failures_total",
    "counter",
    "Failed runs per job name.",
    perJob((t) => t.failures),
  );
  family(
    "tickq_job_retried_total",
    "counter",
    "Failed runs sent to the retry set, per job name.",
    perJob((t) => t.retried),
  );
  family(
    "tickq_job_dead_total",
    "counter",
    "Failed runs sent to the dead set, per job name.",
    perJob((t) => t.dead),
  );
  family(
    "tickq_queue_runs_total",
    "counter",
    "Runs of jobs fetched from each queue.",
    queues.map(([queue, t]) => [{ queue }, t.waits]),
  );

  const sizes = Object.entries(stats.queues).sort(([a], [b]) => a.localeCompare(b));
  family(
    "tickq_queue_size",
    "gauge",
    "Jobs waiting in each queue.",
    sizes.map(([queue, size]) => [{ queue }, size]),
  );
  family(
    "tickq_queue_latency_seconds",
    "gauge",
    "Age of the oldest job waiting in each queue (0 when empty).",
    [...latency].sort((a, b) => a.queue.localeCompare(b.queue)).map((l) => [{ queue: l.queue }, l.ms / 1000]),
  );
  family("tickq_scheduled_jobs", "gauge", "Jobs in the schedule set.", [[{}, stats.scheduled]]);
  family("tickq_retry_jobs", "gauge", "Jobs in the retry set.", [[{}, stats.retry]]);
  family("tickq_dead_jobs", "gauge", "Jobs in the dead set.", [[{}, stats.dead]]);
  family("tickq_running_jobs", "gauge", "Jobs whose handlers live ticks are running.", [[{}, stats.running]]);
  family("tickq_fetched_waiting_jobs", "gauge", "Jobs live ticks fetched and have not started yet.", [
    [{}, stats.fetchedWaiting],
  ]);
  family("tickq_inflight_jobs", "gauge", "Jobs in ticks' lists: fetched and not yet acked.", [[{}, stats.inflight]]);
  family("tickq_live_ticks", "gauge", "Ticks in the registry.", [[{}, stats.ticks]]);

  histogram(
    out,
    "tickq_job_duration_seconds",
    "Run time of jobs, per job name.",
    jobs.map(([name, t]) => [{ name }, t.buckets, t.durationMsSum, sum(t.buckets)]),
  );
  histogram(
    out,
    "tickq_queue_wait_seconds",
    "Wait from enqueue (or retry, or due time) to start, per queue.",
    queues.map(([queue, t]: [string, WaitTally]) => [{ queue }, t.buckets, t.waitMsSum, t.waits]),
  );
  // Declared names only (createTickq's `ordered`): an ordered name is never pushed by an outside client.
  histogram(
    out,
    "tickq_ordered_wait_seconds",
    "Wait of ordered ids from due (enqueue, retry or arrival) to start, per ordered job name.",
    [...totals.ordered]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, t]) => [{ name }, t.buckets, t.waitMsSum, t.waits]),
  );
  return `${out.join("\n")}\n`;
}

function histogram(out: string[], name: string, help: string, series: [Labels, number[], number, number][]): void {
  out.push(`# HELP ${name} ${help}`, `# TYPE ${name} histogram`);
  for (const [labels, buckets, sumMs, count] of series) {
    let cumulative = 0;
    BUCKET_BOUNDS_MS.forEach((bound, k) => {
      cumulative += buckets[k] ?? 0;
      out.push(`${name}_bucket${labelText({ ...labels, le: numberText(bound / 1000) })} ${cumulative}`);
    });
    out.push(`${name}_bucket${labelText({ ...labels, le: "+Inf" })} ${count}`);
    out.push(`${name}_sum${labelText(labels)} ${numberText(sumMs / 1000)}`);
    out.push(`${name}_count${labelText(labels)} ${count}`);
  }
}

function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}

// The format's three escapes in a label value: backslash, double quote, line feed.
const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

const numberText = (n: number) => (Number.isFinite(n) ? String(n) : n > 0 ? "+Inf" : n < 0 ? "-Inf" : "NaN");
