// One tick over partitions: each partition it serves gets the engine's own
// tick (its lease, resurrection, schedule and recurring passes, fetch,
// execute, ack), all of them at once, and the reports add up. A tick serves
// `partitionsPerTick` partitions (default all), the next ones in rotation on
// each tick, so none starves; a fan-out tick starts at a place drawn from its
// id, so parallel ticks cover different partitions first. The tick's
// concurrency is shared: its partitions' pipelines draw on one pool of
// slots (src/tick/slots.ts), so no slot idles while any partition it serves
// has a job waiting, and it never runs more handlers than `concurrency`.
import { monotonicMs } from "../tick/clock.js";
import { concurrencyOf } from "../tick/settings.js";
import { SHARED_SLOTS, SharedSlots, type TickOptionsWithSlots } from "../tick/slots.js";
import type { TickOptions } from "../tick/options.js";
import type { TickReport } from "../types.js";
import type { TickWorkflowReport } from "../workflows/types.js";
import { crc16 } from "./layout.js";

/** What a partition's core offers a tick. */
export interface TickTarget {
  tick(options?: TickOptionsWithSlots): Promise<TickReport>;
  reserveTicks(count: number, maxParallel: number): Promise<string[]>;
}

/** Counts added up over partitions; the flags are true when any partition's was. */
const COUNTS = [
  "fetched",
  "succeeded",
  "failed",
  "retried",
  "dead",
  "discarded",
  "cancelled",
  "resurrected",
  "scheduled",
  "recurring",
  "expired",
  "requeued",
  "abandoned",
  "deadEvicted",
  "roundTrips",
] as const satisfies readonly (keyof TickReport)[];

export function emptyReport(tickId: string, durationMs: number, skipped?: boolean): TickReport {
  const report = { tickId, more: false, leaseLost: false, durationMs } as TickReport;
  for (const count of COUNTS) report[count] = 0;
  if (skipped) report.skipped = true;
  return report;
}

export function mergeReports(tickId: string, reports: TickReport[], durationMs: number): TickReport {
  const merged = emptyReport(tickId, durationMs);
  for (const r of reports) {
    for (const count of COUNTS) merged[count] += r[count];
    if (r.workflows) merged.workflows = addWorkflowReports(merged.workflows, r.workflows);
    merged.more ||= r.more;
    merged.leaseLost ||= r.leaseLost;
    if (r.givenUpSteps) merged.givenUpSteps = (merged.givenUpSteps ?? 0) + r.givenUpSteps;
  }
  if (reports.length > 0 && reports.every((r) => r.skipped)) merged.skipped = true;
  return merged;
}

function addWorkflowReports(a: TickWorkflowReport | undefined, b: TickWorkflowReport): TickWorkflowReport {
  if (!a) return { ...b };
  return {
    steps: a.steps + b.steps,
    completed: a.completed + b.completed,
    failed: a.failed + b.failed,
    parked: a.parked + b.parked,
    retrying: a.retrying + b.retrying,
    cancelled: a.cancelled + b.cancelled,
    abandoned: a.abandoned + b.abandoned,
    lost: a.lost + b.lost,
  };
}

/** Part `i` of `total` split into `parts` near-equal parts (at least 1). */
export function splitOf(total: number, parts: number, i: number): number {
  return Math.max(1, Math.floor(total / parts) + (i < total % parts ? 1 : 0));
}

/** The partitions one tick serves: `per` of them from `start`, wrapping. */
export function shareOf(count: number, per: number, start: number): number[] {
  return Array.from({ length: per }, (_, i) => (start + i) % count);
}

export class PartitionTicks {
  // Where this process's rotation starts: drawn, so that ticks of fresh processes (a serverless
  // invocation each) do not all serve partition 0 first.
  private next: number;
  constructor(private readonly cores: readonly TickTarget[]) {
    this.next = Math.floor(Math.random() * cores.length);
  }

  async tick(options: TickOptions = {}): Promise<TickReport> {
    const started = monotonicMs();
    const n = this.cores.length;
    const { partitionsPerTick, maxParallel, tickId, concurrency, onBacklog, ...rest } = options;
    const per = Math.min(n, Math.max(1, Math.floor(partitionsPerTick ?? n)));
    const start = tickId !== undefined ? crc16(tickId) % n : this.next;
    if (tickId === undefined) this.next = (this.next + per) % n;
    // maxParallel gates whole ticks, counted in partition 0's registry: the slot is this tick's id there.
    let id = tickId;
    if (maxParallel !== undefined && id === undefined) {
      [id] = await this.cores[0]!.reserveTicks(1, maxParallel);
      if (id === undefined) return emptyReport("", monotonicMs() - started, true);
    }
    const share = shareOf(n, per, start);
    if (maxParallel !== undefined && !share.includes(0)) share[share.length - 1] = 0;
    const total = concurrencyOf({ concurrency });
    const slots = new SharedSlots(total);
    let backlogHeard = false;
    const backlog = onBacklog
      ? () => {
          if (!backlogHeard) (backlogHeard = true), onBacklog();
        }
      : undefined;
    const reports = await Promise.all(
      share.map((k, i) =>
        this.cores[k]!.tick({
          ...rest,
          // What stays per partition (workflow executions, a Sidekiq process's size): the slots split, summing to total.
          concurrency: splitOf(total, share.length, i),
          [SHARED_SLOTS]: slots,
          onBacklog: backlog,
          ...(id === undefined ? {} : { tickId: k === 0 ? id : `${id}.p${k}` }),
          ...(k === 0 && maxParallel !== undefined ? { maxParallel } : {}),
        }),
      ),
    );
    const zero = reports[share.indexOf(0)];
    // Partition 0 held the gate: when it skipped, the others' work still counts.
    return mergeReports(id ?? zero?.tickId ?? reports[0]!.tickId, reports, monotonicMs() - started);
  }
}
