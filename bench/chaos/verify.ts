// The final check of a phase, once faults stopped and the workers settled:
// where every planned job ended, by the ledger (what ran) and by the faulted
// Redis (where tickq holds it).
//
//   succeeded   the ledger saw it succeed (any attempt)
//   dead        it is in the dead set; expected: exactly the doomed jobs
//   stuck       still queued, scheduled, in retry or in process: must be 0
//   lost        none of the above: must be 0
//   ran twice   some attempt of it started more than once (a kill, a lost
//               lease, an abandoned handler): reported, not a failure
//   merged      a duplicate of a unique key (until-executed, coalesce),
//               answered the jid of the job that held the key: it never runs
//               itself, and is lost unless that job succeeded
//   overlaps    runs of a flow key that entered while its limit of live runs
//               held it (the ledger's overlap detector): must be 0
//   rate        starts of a rate-limited key, by the ledger's clock: no
//               period may hold more than twice the limit (rateExcess)
//   expired     an expiring job recorded in `expired` (src/expiry/): it ends
//               that way unless it succeeded before (a run whose ack was
//               lost, put back and then found expired); a start stamped
//               after its record is "an expired job ran": must be 0
//
// A job answered its own jid is tickq's to run, even when its chunk was sent
// again: enqueue remembers a jid it pushed, never one it merged (a merged
// job is not remembered, so a resend is judged afresh). One that never ran
// and is nowhere in Redis is lost, whatever other jobs of its key did.
//
// processed: tickq counts one `processed` per ack that settled a job that
// ran (success, or failure sent to retry/dead), and the ledger records each
// finish before its ack. A finish whose ack never settled (worker killed
// after the handler, ack refused after a lost lease) makes the same attempt
// run again: ctx.attempt only grows when a failure is acked. So
//   stats().processed = distinct (job, attempt) pairs the ledger saw finish
//   stats().failed    = distinct (job, attempt) pairs the ledger saw fail
// and, by construction, both equal the planned attempts (1 per plain or
// delayed job, failures + 1 per flaky one, 2 per doomed one; 0 per merged
// duplicate) and the planned failures (every attempt but the last, and the
// last too for a doomed job). A job recorded expired had no attempt acked
// after it was put back: its attempts count on neither side.
//
// The rows of the table, and what fails a phase, are PHASE_CHECKS.
import type { Redis } from "ioredis";
import type { Stats } from "../../src/stats/types.js";
import { columnOf, faultChecks, mustBeZero, mustMatch, problemsOf, type Check, type Column } from "./checks.js";
import type { AdapterName } from "./connect.js";
import type { FaultCounts } from "./faults.js";
import { JOB_KINDS, RATE, type JobKind, type PlannedJob } from "./jobs.js";
import { idOf, type LedgerView } from "./ledger.js";
import { BEGUN_GUARD_BYTES } from "./memory.js";
import type { SettleOutcome } from "./settle.js";

export type Place = "queued" | "inflight" | "parked" | "scheduled" | "retry" | "dead";

/** What the judge reads: the plan, the ledger, where tickq holds each job, its counters, and what the enqueuer was answered. */
export interface Evidence {
  plan: PlannedJob[];
  ledger: LedgerView;
  places: Map<string, Place[]>;
  stats: Stats;
  answers: Answers;
  /** Jobs recorded as expired: id → when (ms, the faulted Redis' clock). */
  expired?: Map<string, number>;
}

/** How the phase went, besides where the jobs ended. */
export interface PhaseRun {
  adapter: AdapterName;
  faults: FaultCounts;
  /** Faults of each kind asked of the injector. */
  faultsAsked: number;
  enqueueRetries: number;
  workerCrashes: number;
  /** Whether the work ran out after the faults' end (bench/chaos/settle.ts). */
  settled: boolean;
  /** The settle's stall window: it gives up once the work left has not fallen for this long. */
  settleSeconds: number;
  /** How the settle went: the work left at its start and end, its length, why it gave up. */
  settle?: SettleOutcome;
  /** Not settled: each flow key's holders, parked and queued jobs (bench/chaos/flow-state.ts). */
  flowKeys?: string[];
  /** Settled: flow slots still held once the work ran out (each a leak). */
  leakedSlots?: string[];
  /** Bytes of the guard against late replays of begin after the run (bench/chaos/memory.ts). */
  beginGuardBytes?: number;
  seconds: number;
  workerStderr: string[];
}

export interface PhaseResult extends PhaseRun {
  jobs: number;
  kinds: Record<JobKind, number>;
  succeeded: number;
  dead: number;
  deadExpected: number;
  lost: number;
  lostIds: string[];
  stuck: number;
  stuckIds: string[];
  /** Dead, though not doomed. */
  wronglyDead: string[];
  /** In the dead set more than once. */
  twiceDead: string[];
  /** Ids the ledger saw run that the plan never had. */
  unplanned: string[];
  merged: number;
  /** Expiring jobs that ran (succeeded) / were recorded as expired without succeeding. */
  expiringRan: number;
  expiredOnly: number;
  /** Recorded as expired (the `expired` set) / stats().expired: must match. */
  expiredRecorded: number;
  expiredCounted: number;
  /** Expiring jobs started after they were recorded as expired, in words. */
  expiredRan: string[];
  overlaps: string[];
  /** Rate-limited keys that started more than twice their limit within one period, in words. */
  rateExcess: string[];
  /** The most starts of one rate-limited key within one period: above the limit shows the limit was reached. */
  rateBusiest: number;
  ranTwice: number;
  /** Of those, flow-controlled jobs (a kind with a key). */
  ranTwiceFlow: number;
  extraRuns: number;
  processed: number;
  ledgerFinished: number;
  plannedProcessed: number;
  /**
   * Attempts of jobs both recorded expired and seen succeeding: either the run's ack never
   * settled and the job expired when put back (not in `processed`), or an enqueue resent after a
   * lost reply made a second copy once the first had run and been acked (its run is in
   * `processed`, the copy expired). The judge cannot tell which: `processed` may exceed the
   * planned attempts by up to this many.
   */
  ambiguousProcessed: number;
  failed: number;
  ledgerFailed: number;
  plannedFailed: number;
  /** Every way the phase went wrong, in words (one per failing row of PHASE_CHECKS); empty if it held. */
  problems: string[];
}

export async function locateJobs(admin: Redis, prefix: string): Promise<Map<string, Place[]>> {
  const places = new Map<string, Place[]>();
  const note = (json: string, place: Place) => {
    let id: string;
    try {
      const job = JSON.parse(json) as { args?: unknown[]; jid?: string };
      id = String(job.args?.[0] ?? job.jid);
    } catch {
      id = /"jid":"([^"]+)"/.exec(json)?.[1] ?? `unreadable:${json.slice(0, 40)}`;
    }
    places.set(id, [...(places.get(id) ?? []), place]);
  };
  for (const [pattern, place] of [
    ["queue:*", "queued"],
    ["inproc:*", "inflight"],
    ["flow:park:*", "parked"],
  ] as const) {
    for (const key of await admin.keys(`${prefix}${pattern}`)) {
      if ((await admin.type(key)) === "list") for (const json of await admin.lrange(key, 0, -1)) note(json, place);
    }
  }
  for (const place of ["scheduled", "retry", "dead"] as const) {
    const key = `${prefix}${place === "scheduled" ? "schedule" : place}`;
    for (const json of await admin.zrange(key, "0", "-1")) note(json, place);
  }
  return places;
}

/** What the enqueuer was answered: ids merged into another jid, ids of chunks sent again. */
export interface Answers {
  answered: Map<string, string>;
  resent: Set<string>;
}

/** The jobs recorded as expired: id (args[0]) → when, ms. */
export async function locateExpired(admin: Redis, prefix: string): Promise<Map<string, number>> {
  const expired = new Map<string, number>();
  const flat = await admin.zrange(`${prefix}expired`, "0", "-1", "WITHSCORES");
  for (let i = 0; i < flat.length; i += 2) {
    const job = JSON.parse(flat[i]!) as { args?: unknown[]; jid?: string };
    expired.set(String(job.args?.[0] ?? job.jid), Number(flat[i + 1]) * 1000);
  }
  return expired;
}

export function judge(e: Evidence, run: PhaseRun): PhaseResult {
  const { plan, ledger, places, stats, answers } = e;
  const expired = e.expired ?? new Map<string, number>();
  const expiredRan: string[] = [];
  const kinds = Object.fromEntries(JOB_KINDS.map((k) => [k, 0])) as Record<JobKind, number>;
  const succeededIds = new Set([...ledger.ok.keys()].map(idOf));
  const merged = new Set<string>();
  const lostIds: string[] = [];
  const stuckIds: string[] = [];
  const wronglyDead: string[] = [];
  const twiceDead: string[] = [];
  let dead = 0;
  let deadExpected = 0;
  for (const job of plan) {
    kinds[job.kind]++;
    const where = places.get(job.id) ?? [];
    const isDead = where.includes("dead");
    if (isDead) dead++;
    if (job.kind === "doomed") deadExpected++;
    if (isDead && job.kind !== "doomed") wronglyDead.push(job.id);
    if (where.filter((p) => p === "dead").length > 1) twiceDead.push(job.id);
    const holder = answers.answered.get(job.id);
    if (holder !== undefined) {
      merged.add(job.id);
      if (where.length > 0 || ledger.start.has(`${job.id}#1`))
        lostIds.push(`${job.id} (merged into ${holder}, yet it was enqueued too: ${where.join(", ") || "it ran"})`);
      else if (!succeededIds.has(holder)) lostIds.push(`${job.id} (merged into ${holder}, which never succeeded)`);
    } else if (where.some((p) => p !== "dead")) stuckIds.push(`${job.id} (${where.join(", ")})`);
    else if (expired.has(job.id)) {
      // Both clocks are this machine's, read by two Redis servers: 50 ms of slack for the reads apart.
      const late = (ledger.stamps.get(job.id) ?? []).filter((ms) => ms > expired.get(job.id)! + 50);
      if (late.length) expiredRan.push(`${job.id} started ${late[0]! - expired.get(job.id)!} ms after its record`);
    } else if (!isDead && !succeededIds.has(job.id)) {
      const resent = answers.resent.has(job.id) ? ", its chunk was sent again" : "";
      lostIds.push(`${job.id} (${job.kind}${resent}; ledger: ${history(ledger, job.id, job.attempts)})`);
    }
  }
  const perJob = new Map<string, number>();
  let extraRuns = 0;
  for (const [field, n] of ledger.start) {
    if (n > 1) perJob.set(idOf(field), 1);
    extraRuns += n - 1;
  }
  // A job recorded expired: no attempt of it was acked after it was put back, so none counts.
  const finished = new Set([...ledger.ok.keys(), ...ledger.fail.keys()].filter((f) => !expired.has(idOf(f))));
  const planned = new Set(plan.map((j) => j.id));
  const ran = plan.filter((j) => !merged.has(j.id) && !expired.has(j.id));
  const expiring = plan.filter((j) => j.kind === "expiring");
  const result: PhaseResult = {
    ...run,
    jobs: plan.length,
    kinds,
    succeeded: plan.filter((j) => succeededIds.has(j.id)).length,
    dead,
    deadExpected,
    lost: lostIds.length,
    lostIds,
    stuck: stuckIds.length,
    stuckIds,
    wronglyDead,
    twiceDead,
    unplanned: [...succeededIds].filter((id) => !planned.has(id)),
    merged: merged.size,
    expiringRan: expiring.filter((j) => succeededIds.has(j.id)).length,
    expiredOnly: expiring.filter((j) => expired.has(j.id) && !succeededIds.has(j.id)).length,
    expiredRecorded: expired.size,
    expiredCounted: stats.expired,
    expiredRan,
    overlaps: ledger.overlaps,
    rateExcess: rateExcess(ledger.rated),
    rateBusiest: Math.max(0, ...[...ledger.rated.values()].map(busiest)),
    ranTwice: perJob.size,
    ranTwiceFlow: plan.filter((j) => j.args[3] !== "" && perJob.has(j.id)).length,
    extraRuns,
    processed: stats.processed,
    ledgerFinished: finished.size,
    plannedProcessed: ran.reduce((sum, j) => sum + j.attempts, 0),
    ambiguousProcessed: plan
      .filter((j) => !merged.has(j.id) && expired.has(j.id) && succeededIds.has(j.id))
      .reduce((sum, j) => sum + j.attempts, 0),
    failed: stats.failed,
    ledgerFailed: ledger.fail.size,
    plannedFailed: ran.reduce((sum, j) => sum + (j.kind === "doomed" ? j.attempts : j.attempts - 1), 0),
    problems: [],
  };
  result.problems = problemsOf(PHASE_CHECKS, result);
  return result;
}

const FLOW_KINDS = ["exclusive", "limited", "rated", "once", "coalesced"] as const;

/** The rows of a phase's table, in order; every one with a `problem` fails the phase when its figure breaks it. */
export const PHASE_CHECKS: Check<PhaseResult>[] = [
  { label: "jobs", value: (r) => r.jobs },
  {
    label: "  plain / delayed / flaky / doomed / expiring",
    value: (r) => `${r.kinds.plain} / ${r.kinds.delayed} / ${r.kinds.flaky} / ${r.kinds.doomed} / ${r.kinds.expiring}`,
  },
  {
    label: "  flow: exclusive / limited / rated / once / coalesced",
    value: (r) => FLOW_KINDS.map((k) => r.kinds[k]).join(" / "),
    problem: (r) => {
      const missing = FLOW_KINDS.filter((k) => r.kinds[k] === 0);
      return missing.length
        ? `the plan has no ${missing.join(", ")} job: the phase checks nothing of them (plan more jobs)`
        : undefined;
    },
  },
  ...faultChecks<PhaseResult>(),
  { label: "enqueue chunks sent again", value: (r) => r.enqueueRetries },
  { label: "succeeded", value: (r) => r.succeeded },
  mustMatch(
    "dead / expected (the doomed)",
    (r) => r.dead,
    (r) => r.deadExpected,
    "every doomed job, and only they, end dead",
  ),
  mustBeZero(
    "lost",
    (r) => r.lost,
    (r) => r.lostIds,
  ),
  mustBeZero(
    "stuck",
    (r) => r.stuck,
    (r) => r.stuckIds,
  ),
  mustBeZero(
    "overlapping runs of a flow key",
    (r) => r.overlaps.length,
    (r) => r.overlaps,
  ),
  {
    label: `rate-limited: most starts of a key in ${RATE.periodMs} ms (limit ${RATE.limit})`,
    value: (r) => r.rateBusiest,
  },
  mustBeZero(
    "rate-limited starts beyond twice the limit in a period",
    (r) => r.rateExcess.length,
    (r) => r.rateExcess,
  ),
  mustBeZero(
    "dead though not doomed",
    (r) => r.wronglyDead.length,
    (r) => r.wronglyDead,
  ),
  mustBeZero(
    "in the dead set more than once",
    (r) => r.twiceDead.length,
    (r) => r.twiceDead,
  ),
  mustBeZero(
    "ran though never planned",
    (r) => r.unplanned.length,
    (r) => r.unplanned,
  ),
  {
    label: "duplicates merged at enqueue",
    value: (r) => r.merged,
    problem: (r) =>
      r.merged === 0
        ? "no duplicate of a unique key was merged at enqueue: the phase checks no merge (plan more jobs)"
        : undefined,
  },
  { label: "expiring: ran / expired", value: (r) => `${r.expiringRan} / ${r.expiredOnly}` },
  mustBeZero(
    "an expired job ran",
    (r) => r.expiredRan.length,
    (r) => r.expiredRan,
  ),
  mustMatch(
    "expired: recorded / stats()",
    (r) => r.expiredRecorded,
    (r) => r.expiredCounted,
    "each expired job is recorded and counted once",
  ),
  mustMatch(
    "succeeded + dead + merged + expired / jobs",
    (r) => r.succeeded + r.dead + r.merged + r.expiredOnly,
    (r) => r.jobs,
    "every job ends one way",
  ),
  { label: "ran more than once (jobs)", value: (r) => r.ranTwice },
  { label: "  of them flow-controlled", value: (r) => r.ranTwiceFlow },
  { label: "  extra runs", value: (r) => r.extraRuns },
  processedWithin(
    "processed: stats() / planned attempts",
    (r) => r.plannedProcessed,
    "one per attempt that ran and was acked",
  ),
  processedWithin(
    "processed: stats() / ledger (job, attempt) finished",
    (r) => r.ledgerFinished,
    "tickq counts the attempts that ran",
  ),
  mustMatch(
    "failed: stats() / planned failures",
    (r) => r.failed,
    (r) => r.plannedFailed,
    "one per failing attempt",
  ),
  mustMatch(
    "failed: stats() / ledger",
    (r) => r.failed,
    (r) => r.ledgerFailed,
    "tickq counts the failures that ran",
  ),
  { label: "worker crashes", value: (r) => r.workerCrashes },
  mustBeZero(
    "flow slots held once the work ran out",
    (r) => r.leakedSlots?.length ?? 0,
    (r) => r.leakedSlots ?? [],
  ),
  {
    label: "settled",
    value: (r) => {
      const verdict = r.settled ? "yes" : "no";
      return r.settle
        ? `${verdict}: ${r.settle.workAtStart} → ${r.settle.workAtEnd} left in ${r.settle.seconds} s`
        : verdict;
    },
    problem: (r) => (r.settled ? undefined : unsettled(r)),
  },
  {
    label: `memory after the run: begin guard, bytes (at most ${BEGUN_GUARD_BYTES})`,
    value: (r) => r.beginGuardBytes,
    problem: (r) =>
      (r.beginGuardBytes ?? 0) <= BEGUN_GUARD_BYTES
        ? undefined
        : `the guard against late replays of begin holds ${r.beginGuardBytes} bytes, over its stated ${BEGUN_GUARD_BYTES}`,
  },
  { label: "seconds", value: (r) => r.seconds },
];

/** Why the phase did not settle, with how its flow keys stood. */
function unsettled(r: PhaseRun): string {
  const why = r.settle?.why ? `: ${r.settle.why}` : ` after ${r.settleSeconds} s of settling`;
  const keys = r.flowKeys?.length ? `; flow keys: ${r.flowKeys.join(" | ")}` : "";
  return `work was still left${why}${keys}`;
}

/** The most starts within one period of the rate limit. */
function busiest(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, end = 0; i < sorted.length; i++) {
    while (end < sorted.length && sorted[end]! < sorted[i]! + RATE.periodMs) end++;
    most = Math.max(most, end - i);
  }
  return most;
}

/**
 * Keys whose starts break the rate limit with room for lateness: the limit
 * holds over admissions (Redis' time at fetch), and a start may come up to
 * a period after its admission (a reply dropped and resent, a busy tick),
 * so any window of one period may hold up to twice the limit, never more.
 */
function rateExcess(rated: Map<string, number[]>): string[] {
  const out: string[] = [];
  for (const [key, times] of rated) {
    const sorted = [...times].sort((a, b) => a - b);
    for (let i = 0, end = 0; i < sorted.length; i++) {
      while (end < sorted.length && sorted[end]! < sorted[i]! + RATE.periodMs) end++;
      if (end - i > 2 * RATE.limit) {
        out.push(`${key}: ${end - i} starts from ${sorted[i]} ms within ${RATE.periodMs} ms (limit ${RATE.limit})`);
        break;
      }
    }
  }
  return out;
}

/** "a1: 2 starts, ok; a2: …" — what the ledger knows of one job. */
function history(ledger: LedgerView, id: string, attempts: number): string {
  const parts: string[] = [];
  for (let a = 1; a <= attempts + 1; a++) {
    const f = `${id}#${a}`;
    const starts = ledger.start.get(f) ?? 0;
    if (!starts && a > 1) break;
    parts.push(`a${a}: ${starts} start(s), ${ledger.ok.get(f) ?? 0} ok, ${ledger.fail.get(f) ?? 0} fail`);
  }
  return parts.join("; ");
}

/** The phase as a column of the chaos table. */
export const phaseColumn = (r: PhaseResult): Column => columnOf(r.adapter, PHASE_CHECKS, r);

/** A row "processed / expected": equal, or above by no more than the ambiguous attempts (PhaseResult.ambiguousProcessed). */
function processedWithin(label: string, expected: (r: PhaseResult) => number, why: string): Check<PhaseResult> {
  const extra = (r: PhaseResult) =>
    r.ambiguousProcessed > 0 ? ` (up to +${r.ambiguousProcessed}: ran, then a copy expired)` : "";
  return {
    label,
    value: (r) => `${r.processed} / ${expected(r)}${extra(r)}`,
    problem: (r) => {
      const over = r.processed - expected(r);
      if (over >= 0 && over <= r.ambiguousProcessed) return undefined;
      return `${label}: ${r.processed} ≠ ${expected(r)}${extra(r)} (${why})`;
    },
  };
}
