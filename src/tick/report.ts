// A tick's report: its counts, and the outcomes behind them. Every kind of
// work (plain jobs and each capability's lane) ends in one of the same kinds
// of outcome, so one tally serves all.
import type { TickOutcome } from "./capability.js";
import { ackOrder, type Outcome } from "./passes/ack.js";
import type { TickReport } from "./tick-report.js";

export function newReport(tickId: string): TickReport {
  return {
    tickId,
    fetched: 0,
    succeeded: 0,
    failed: 0,
    retried: 0,
    dead: 0,
    resurrected: 0,
    scheduled: 0,
    requeued: 0,
    abandoned: 0,
    deadEvicted: 0,
    more: false,
    leaseLost: false,
    roundTrips: 0,
    durationMs: 0,
    recurring: 0,
    discarded: 0,
    expired: 0,
    cancelled: 0,
  };
}

/** Counts an outcome in the report (`by` -1 takes it back). */
export function tally(report: TickReport, o: TickOutcome, by = 1): void {
  if (o.kind === "cancelled") report.cancelled += by;
  else if (o.kind === "succeeded") report.succeeded += by;
  else if (o.kind === "retry") {
    report.retried += by;
    report.failed += by;
  } else if (o.kind === "dead") {
    report.dead += by;
    if (o.handlerFailed) report.failed += by;
  } else if (o.kind === "discarded") {
    report.discarded += by;
    report.failed += by;
  } else report.requeued += by;
}

/** An outcome Redis settled as cancelled (a cancel came first) counts as cancelled, not as what its run said. */
export function countCancelledInstead(report: TickReport, o: TickOutcome): void {
  if (o.kind === "cancelled") return;
  tally(report, o, -1);
  report.cancelled++;
}

/** Plain acks whose numbers (lib/tick/ack-jobs.lua's order, from 1) Redis settled as cancelled. */
export function recount(report: TickReport, acked: Outcome[], cancelled: number[] | undefined): void {
  if (cancelled === undefined || cancelled.length === 0) return;
  const order = ackOrder(acked);
  for (const k of cancelled) {
    const o = order[k - 1];
    if (o) countCancelledInstead(report, o);
  }
}

/** What a tick's span records of its report. */
export function tickAttributes(r: TickReport): Record<string, number | boolean> {
  return {
    "tickq.tick.fetched": r.fetched,
    "tickq.tick.succeeded": r.succeeded,
    "tickq.tick.failed": r.failed,
    "tickq.tick.dead": r.dead,
    "tickq.tick.more": r.more,
    "tickq.tick.lease_lost": r.leaseLost,
  };
}
