// One tick: begin (lease, resurrect, schedule, fetch) → execute → step (ack,
// extend, fetch) → … → finish (ack, requeue, unregister). Each arrow is one
// Redis round trip, whatever the batch size. A tick killed at any line loses
// nothing: its fetched jobs sit in its inproc lists until acked, and once
// its lease expires the next tick's resurrect pass puts them back.
import { newJid } from "./job.js";
import { keepLease } from "./lease.js";
import { ackArgs, type Outcome } from "./passes/ack.js";
import { executeBatch } from "./passes/execute.js";
import { readFetched } from "./passes/fetch.js";
import { housekeepArgs, readHousekeep, type HousekeepLimits } from "./passes/housekeep.js";
import { fetchArgs } from "./queues.js";
import { asArray, asNumber, type RoundTrips } from "./redis.js";
import type { Runtime } from "./runtime.js";
import { scripts } from "./scripts/index.js";
import type { TickOptions, TickReport } from "./types.js";

/** Share of the budget that extra housekeeping calls may use. */
const HOUSEKEEP_SHARE = 0.25;

export async function runTick(runtime: Runtime, options: TickOptions = {}): Promise<TickReport> {
  const budgetMs = options.budgetMs ?? 10_000;
  // Capped: a batch is one LPUSH of unpacked jobs in Lua (its C stack holds ~8,000).
  const batch = Math.min(1_000, Math.max(1, Math.floor(options.batch ?? 50)));
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 10));
  const leaseMs = Math.max(100, Math.floor(options.leaseMs ?? 30_000));
  const graceMs = options.graceMs ?? 1_000;
  const limits: HousekeepLimits = {
    resurrectLimit: options.resurrectLimit ?? 1_000,
    scheduleLimit: options.scheduleLimit ?? 1_000,
    lockMs: leaseMs,
  };

  const started = Date.now();
  const tickId = newJid().slice(0, 16);
  const trips: RoundTrips = { count: 0 };
  const report: TickReport = {
    tickId, fetched: 0, succeeded: 0, failed: 0, retried: 0, dead: 0, resurrected: 0, scheduled: 0,
    requeued: 0, abandoned: 0, deadEvicted: 0, more: false, leaseLost: false, roundTrips: 0, durationMs: 0,
  };
  const { keys, plan } = runtime;
  const tickKeys = [keys.ticks, keys.lease(tickId)];
  const common = [tickId, leaseMs, runtime.deadMaxJobs, runtime.deadMaxAgeSeconds];
  const learnClock = (nowMs: number) => (runtime.clockOffsetMs = nowMs - Date.now());

  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(new Error("tick deadline reached")), budgetMs);
  const lease = keepLease(runtime, tickId, leaseMs, trips, () => {
    report.leaseLost = true;
    controller.abort(new Error("tick lease lost"));
  });

  try {
    const registration = JSON.stringify({ queues: plan.names, started, lease: leaseMs });
    const begun = asArray(
      await runtime.run(scripts.begin, tickKeys, [...common, registration, ...housekeepArgs(limits), ...fetchArgs(plan, batch)], trips),
      "begin",
    );
    const housekept = readHousekeep(begun);
    learnClock(housekept.nowMs);
    report.resurrected += housekept.resurrected;
    report.scheduled += housekept.scheduled;
    let fetched = readFetched(begun[5]);
    let housekeepingLeft = housekept.more;

    while (housekeepingLeft && Date.now() - started < budgetMs * HOUSEKEEP_SHARE) {
      const more = readHousekeep(asArray(await runtime.run(scripts.housekeep, tickKeys, [tickId, ...housekeepArgs(limits)], trips), "housekeep"));
      report.resurrected += more.resurrected;
      report.scheduled += more.scheduled;
      housekeepingLeft = more.more;
    }

    let pending: Outcome[] = [];
    while (fetched.length > 0) {
      report.fetched += fetched.length;
      const { outcomes, abandoned } = await executeBatch(runtime, fetched, controller.signal, concurrency, graceMs);
      tally(report, outcomes);
      report.abandoned += abandoned;
      const full = fetched.length === batch;
      if (!full || controller.signal.aborted || Date.now() - started >= budgetMs) {
        pending = outcomes;
        report.more = full || report.leaseLost;
        break;
      }
      const stepped = asArray(await runtime.run(scripts.step, tickKeys, [...common, ...ackArgs(outcomes), ...fetchArgs(plan, batch)], trips), "step");
      learnClock(asNumber(stepped[0]));
      lease.renewed();
      report.deadEvicted += asNumber(stepped[2]);
      if (asNumber(stepped[1]) === 0) {
        report.leaseLost = true;
        report.more = true;
        fetched = [];
        break;
      }
      fetched = readFetched(stepped[3]);
    }
    report.more ||= housekeepingLeft;

    lease.stop();
    const finished = asArray(
      await runtime.run(scripts.finish, tickKeys, [...common, ...ackArgs(pending), plan.names.length, ...plan.names], trips),
      "finish",
    );
    report.deadEvicted += asNumber(finished[2]);
    if (report.abandoned > 0) {
      runtime.logger.warn(
        `tickq: tick ${tickId} left ${report.abandoned} job(s) whose handlers ignored the abort; they return to their queues once its lease expires`,
      );
    }
  } finally {
    clearTimeout(deadline);
    lease.stop();
    report.roundTrips = trips.count;
    report.durationMs = Date.now() - started;
  }
  return report;
}

function tally(report: TickReport, outcomes: Outcome[]): void {
  for (const o of outcomes) {
    if (o.kind === "succeeded") report.succeeded++;
    else if (o.kind === "retry") {
      report.retried++;
      report.failed++;
    } else if (o.kind === "dead") {
      report.dead++;
      if (o.handlerFailed) report.failed++;
    } else report.requeued++;
  }
}

