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
//
// A duplicate whose chunk was sent again may have been answered its own jid
// by the resend (the first send landed, merged, and the jid was remembered):
// it never runs, and counts as merged into whatever job of its key
// succeeded (`ownAnswer`, reported).
//
// processed: tickq counts one `processed` per ack that settled a job that
// ran (success, or failure sent to retry/dead), and the ledger records each
// finish before its ack. A finish whose ack never settled (worker killed
// after the handler, ack refused after a lost lease) makes the same attempt
// run again: ctx.attempt only grows when a failure is acked. So
//   stats().processed = distinct (job, attempt) pairs the ledger saw finish
//   stats().failed    = distinct (job, attempt) pairs the ledger saw fail
// and, by construction, both equal the planned attempts (1 per plain or
// delayed job, failures + 1 per flaky one, 2 per doomed one).
import type { Redis } from "ioredis";
import type { Stats } from "../../src/types.js";
import { JOB_KINDS, type JobKind, type PlannedJob } from "./jobs.js";
import { idOf, type LedgerView } from "./ledger.js";

export type Place = "queued" | "inflight" | "parked" | "scheduled" | "retry" | "dead";

export interface PhaseVerdict {
  jobs: number;
  kinds: Record<JobKind, number>;
  succeeded: number;
  dead: number;
  deadExpected: number;
  lost: number;
  stuck: number;
  merged: number;
  ownAnswer: number;
  overlaps: number;
  ranTwice: number;
  /** Of those, flow-controlled jobs (a kind with a key). */
  ranTwiceFlow: number;
  extraRuns: number;
  processed: number;
  ledgerFinished: number;
  plannedProcessed: number;
  failed: number;
  ledgerFailed: number;
  /** Every way the phase went wrong, in words; empty if it held. */
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
  for (const [pattern, place] of [["queue:*", "queued"], ["inproc:*", "inflight"], ["flow:park:*", "parked"]] as const) {
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

export function judge(plan: PlannedJob[], ledger: LedgerView, places: Map<string, Place[]>, stats: Stats, answers: Answers): PhaseVerdict {
  const kinds = Object.fromEntries(JOB_KINDS.map((k) => [k, 0])) as Record<JobKind, number>;
  const succeededIds = new Set([...ledger.ok.keys()].map(idOf));
  const keyRan = new Set(plan.filter((j) => succeededIds.has(j.id)).map((j) => j.args[3]));
  const merged = new Set<string>();
  const ownAnswer = new Set<string>();
  const problems: string[] = [];
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
    const neverRan = where.length === 0 && !succeededIds.has(job.id) && !ledger.start.has(`${job.id}#1`);
    if (holder !== undefined) {
      merged.add(job.id);
      if (where.length > 0 || ledger.start.has(`${job.id}#1`)) lostIds.push(`${job.id} (merged into ${holder}, yet it was enqueued too: ${where.join(", ") || "it ran"})`);
      else if (!succeededIds.has(holder)) lostIds.push(`${job.id} (merged into ${holder}, which never succeeded)`);
    } else if (neverRan && job.unique && job.unique !== "while-executing" && answers.resent.has(job.id) && keyRan.has(job.args[3])) {
      ownAnswer.add(job.id);
    } else if (where.some((p) => p !== "dead")) stuckIds.push(`${job.id} (${where.join(", ")})`);
    else if (!isDead && !succeededIds.has(job.id)) lostIds.push(`${job.id} (${job.kind}; ledger: ${history(ledger, job.id, job.attempts)})`);
  }
  const perJob = new Map<string, number>();
  let extraRuns = 0;
  for (const [field, n] of ledger.start) {
    if (n > 1) perJob.set(idOf(field), 1);
    extraRuns += n - 1;
  }
  const finished = new Set([...ledger.ok.keys(), ...ledger.fail.keys()]);
  const verdict: PhaseVerdict = {
    jobs: plan.length,
    kinds,
    succeeded: plan.filter((j) => succeededIds.has(j.id)).length,
    dead,
    deadExpected,
    lost: lostIds.length,
    stuck: stuckIds.length,
    merged: merged.size,
    ownAnswer: ownAnswer.size,
    overlaps: ledger.overlaps.length,
    ranTwice: perJob.size,
    ranTwiceFlow: plan.filter((j) => j.args[3] !== "" && perJob.has(j.id)).length,
    extraRuns,
    processed: stats.processed,
    ledgerFinished: finished.size,
    plannedProcessed: plan.reduce((sum, j) => sum + (merged.has(j.id) || ownAnswer.has(j.id) ? 0 : j.attempts), 0),
    failed: stats.failed,
    ledgerFailed: ledger.fail.size,
    problems,
  };
  if (lostIds.length) problems.unshift(`lost ${lostIds.length}: ${lostIds.slice(0, 10).join("; ")}`);
  if (stuckIds.length) problems.unshift(`stuck ${stuckIds.length}: ${stuckIds.slice(0, 10).join("; ")}`);
  if (ledger.overlaps.length) problems.unshift(`${ledger.overlaps.length} overlapping runs of a flow key: ${ledger.overlaps.slice(0, 5).join("; ")}`);
  if (verdict.processed !== verdict.ledgerFinished) problems.push(`stats().processed ${verdict.processed} ≠ ${verdict.ledgerFinished} (job, attempt) finishes in the ledger`);
  if (verdict.failed !== verdict.ledgerFailed) problems.push(`stats().failed ${verdict.failed} ≠ ${verdict.ledgerFailed} failed (job, attempt) in the ledger`);
  const some = (ids: string[]) => `${ids.length}: ${ids.slice(0, 5).join(", ")}`;
  if (wronglyDead.length) problems.push(`jobs that should not be dead are in the dead set ${some(wronglyDead)}`);
  if (twiceDead.length) problems.push(`jobs in the dead set more than once ${some(twiceDead)}`);
  const planned = new Set(plan.map((j) => j.id));
  const unplanned = [...succeededIds].filter((id) => !planned.has(id));
  if (unplanned.length) problems.push(`the ledger holds jobs never planned: ${unplanned.slice(0, 5).join(", ")}`);
  return verdict;
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
