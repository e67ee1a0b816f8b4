// The rollback phase's judge (bench/chaos/rollback-phase.ts), free of Redis
// so a unit test can feed it evidence by hand. What `appendfsync everysec`
// may lose is what was acknowledged after the moment a rollback kept
// (`keptUpTo`, at most a second before the kill): an enqueue of then
// vanishes, an ack of then is undone and its work runs again. Anything
// acknowledged before that moment is a write the rollback could not take:
// lost, it is tickq's doing. An enqueue sent before a kill but answered
// after it may also have run on the Redis that died: its reply was on its
// way (over HTTP, a turn of the event loop behind the kill's).
import { columnOf, mustBeZero, mustMatch, problemsOf, type Check, type Column } from "./checks.js";
import type { AdapterName } from "./connect.js";
import type { Rollback } from "./rollback-redis.js";

/** One unit's executions: when each started, and each success with when its ack was known acknowledged. */
export interface UnitHistory {
  starts: number[];
  successes: { endedAt: number; ackedBy?: number }[];
}

export interface RollbackEvidence {
  rollbacks: Rollback[];
  /** Unit → when its enqueue (a job, a payload, a run's start) was acknowledged. */
  enqueued: Map<string, number>;
  /** Unit → when the enqueue that was acknowledged was sent (absent: taken as its acknowledgement). */
  sent?: Map<string, number>;
  /** Unit → attempts its enqueue took, the answered one included (reported with a loss). */
  attempts?: Map<string, number>;
  histories: Map<string, UnitHistory>;
  /** Units that ended as asked: a job or payload that succeeded, a run that completed. */
  completed: Set<string>;
  /** Units still in Redis at the end that never completed, with where or how they stand. */
  present: Map<string, string>;
  /** Where a unit neither completed nor present stands in Redis, in words: what a lost unit's report shows. */
  whereabouts?: Map<string, string>;
  /** Starts whose fence was not above one seen before in their scope, in words. */
  backwards: string[];
  /** Executions that entered a scope (the limit-1 key, a unique key, an ordered id, a run) another held. */
  overlaps: string[];
  /**
   * Workflow step successes whose tick returned, lease kept, without committing them (their acks not recorded:
   * bench/chaos/rollback-worker.ts), and the ticks among them that held back more steps than the runs they left past
   * graceMs and those whose commit was not stored (a run's round is one step), in words.
   */
  uncommitted?: { steps: number; unexplained: string[] };
}

export interface RollbackVerdict {
  /** Writes acknowledged before a rollback's kept moment that did not survive, in words. */
  lostOld: string[];
  /** Enqueues acknowledged in a rollback's lost window and gone: what everysec may lose. */
  lostInWindow: number;
  /** The longest any of them was acknowledged before its kill, ms. */
  oldestLossMs?: number;
  /** Of them, those sent before their kill and answered after it (the reply was on its way). */
  lostAnsweredAfterKill: number;
  /** Claims or acks in a lost window undone (their work ran again). */
  undoneInWindow: number;
  /**
   * Reruns a resent enqueue explains: an attempt whose answer never came had landed and run, and the one
   * answered, a new call, came once the unit may have been claimed, so it added the unit again.
   */
  rerunByResend: number;
  presentNotDone: string[];
  /** Executions beyond each unit's first. */
  reran: number;
}

/** The phase's workers' tick budget and lease (bench/chaos/rollback-worker.ts gets them from the phase). */
export const ROLLBACK_TICK = { budgetMs: 1_000, leaseMs: 1_500 };

/**
 * How long before its start an execution's claim can have been made: a tick's budget and its lease. A
 * rollback that forgets the claim (the fetch) hands the work out again even though the ack that followed it
 * was acknowledged after the restart: that rerun is the rollback's, not a lost ack.
 */
export const CLAIM_SLACK_MS = ROLLBACK_TICK.budgetMs + ROLLBACK_TICK.leaseMs;

/**
 * How long Redis may hold an acknowledged write unwritten under `everysec`: while a background fsync is slow
 * it postpones writing the AOF for up to 2 s and answers meanwhile ("2 s if the disk stalls",
 * docs/running-redis.md), so a SIGKILL alone loses those, and the AOF's size lags the replies by as much.
 */
export const AOF_WRITE_STALL_MS = 2_000;

/** The moment from which a rollback may have forgotten a write: its kept sample, less what Redis held unwritten. */
const forgetsFrom = (r: Rollback) => r.keptUpTo - AOF_WRITE_STALL_MS;
/** Whether a write Redis ran between `sentAt` and `ackedAt` may have run after `r`'s forgetting began, before its kill. */
const mayForget = (r: Rollback, sentAt: number, ackedAt: number) => forgetsFrom(r) <= ackedAt && sentAt <= r.killedAt;

export function judgeRollback(e: RollbackEvidence): RollbackVerdict {
  const verdict: RollbackVerdict = {
    lostOld: [],
    lostInWindow: 0,
    lostAnsweredAfterKill: 0,
    undoneInWindow: 0,
    rerunByResend: 0,
    presentNotDone: [],
    reran: 0,
  };
  const rollbacks = [...e.rollbacks].sort((a, b) => a.killedAt - b.killedAt);
  for (const [unit, ackedAt] of e.enqueued) {
    if (e.completed.has(unit) || e.present.has(unit)) continue;
    const sentAt = Math.min(e.sent?.get(unit) ?? ackedAt, ackedAt);
    const by = rollbacks.find((r) => mayForget(r, sentAt, ackedAt));
    if (by) {
      verdict.lostInWindow++;
      if (ackedAt > by.killedAt) verdict.lostAnsweredAfterKill++;
      verdict.oldestLossMs = Math.max(verdict.oldestLossMs ?? 0, by.killedAt - ackedAt);
    } else
      verdict.lostOld.push(
        `${unit}: enqueue acknowledged at ${describe(rollbacks, ackedAt)}, gone; ${historyOf(e, unit)}`,
      );
  }
  for (const [unit, h] of e.histories) {
    verdict.reran += Math.max(0, h.starts.length - 1);
    for (const s of h.successes) {
      if (s.ackedBy === undefined) continue;
      // Only a start after the ack was known answered: one before may have come while the ack was in flight.
      const again = h.starts.find((t) => t > s.ackedBy!);
      if (again === undefined) continue;
      // The start of the execution that succeeded: its claim (the fetch) came at most CLAIM_SLACK_MS before.
      const began = h.starts.filter((t) => t <= s.endedAt).at(-1) ?? s.endedAt;
      if (secondCopy(e, unit, began)) {
        verdict.rerunByResend++;
        continue;
      }
      // A rollback after that claim and before the new start that may have forgotten the claim or the ack; a
      // start waits for Redis to answer (its tick confirms its lease first), so a claim precedes it by that too.
      const between = rollbacks.filter(
        (r) => began - CLAIM_SLACK_MS - (r.downMs ?? 0) <= r.killedAt && r.killedAt < again,
      );
      if (between.some((r) => forgetsFrom(r) <= s.ackedBy!)) verdict.undoneInWindow++;
      else
        verdict.lostOld.push(
          `${unit}: ran again at ${again} although its run of ${began}–${s.endedAt} was acked at ${describe(rollbacks, s.ackedBy)}; ${historyOf(e, unit)}`,
        );
    }
  }
  for (const [unit, how] of e.present) if (!e.completed.has(unit)) verdict.presentNotDone.push(`${unit}: ${how}`);
  return verdict;
}

/**
 * Whether the unit's enqueue was sent more than once and answered once its run of `began` may have been claimed:
 * an earlier attempt landed (the run), the answered one found the unit claimed or done and added it again.
 */
function secondCopy(e: RollbackEvidence, unit: string, began: number): boolean {
  const acked = e.enqueued.get(unit);
  return (e.attempts?.get(unit) ?? 1) > 1 && acked !== undefined && acked >= began - CLAIM_SLACK_MS;
}

/**
 * A moment, told against the rollbacks around it: "T (N ms before the kill at K, which kept up to M; P ms
 * after the kill at J, down D ms)".
 */
function describe(rollbacks: Rollback[], at: number): string {
  const next = rollbacks.find((r) => r.killedAt >= at);
  const last = rollbacks.filter((r) => r.killedAt < at).at(-1);
  const before = next
    ? `${next.killedAt - at} ms before the kill at ${next.killedAt}, which kept up to ${next.keptUpTo}`
    : "after the last kill";
  const after = last
    ? `; ${at - last.killedAt} ms after the kill at ${last.killedAt}, down ${last.downMs ?? "?"} ms`
    : "";
  return `${at} (${before}${after})`;
}

/**
 * A unit's enqueue (when sent and answered, in how many attempts), its executions on the ledger and, when it is
 * neither completed nor present, where it stands in Redis.
 */
function historyOf(e: RollbackEvidence, unit: string): string {
  // A workflow step's unit is RUN:STEP: the run's start is its enqueue.
  const colon = unit.lastIndexOf(":");
  const sentUnit = e.enqueued.has(unit) || colon < 0 ? unit : unit.slice(0, colon);
  const acked = e.enqueued.get(sentUnit);
  const sent =
    acked === undefined
      ? ""
      : `enqueue${sentUnit === unit ? "" : ` of ${sentUnit}`}: attempt ${e.attempts?.get(sentUnit) ?? "?"} sent at ${e.sent?.get(sentUnit) ?? "?"}, answered at ${acked}; `;
  const h = e.histories.get(unit);
  const ran = h
    ? `starts ${h.starts.join(", ") || "none"}, successes ${h.successes.map((s) => `ended ${s.endedAt} acked ${s.ackedBy ?? "never"}`).join(", ") || "none"}`
    : "no execution recorded";
  const where = e.whereabouts?.get(unit);
  return where === undefined ? `${sent}ledger: ${ran}` : `${sent}ledger: ${ran}; in Redis: ${where}`;
}

/** The rollbacks' moments, for a report of a loss: "kill K (kept up to M, N ms before; cut B bytes; down D ms)". */
export function describeRollbacks(rollbacks: Rollback[]): string {
  return `rollbacks: ${rollbacks
    .map(
      (r) =>
        `kill ${r.killedAt} (kept up to ${r.keptUpTo}, ${r.killedAt - r.keptUpTo} ms before; cut ${r.bytesCut} bytes; down ${r.downMs ?? "?"} ms)`,
    )
    .join(", ")}`;
}

export interface RollbackPhaseResult extends RollbackVerdict {
  adapter: AdapterName;
  rollbacksAsked: number;
  rollbacks: Rollback[];
  units?: { jobs: number; payloads: number; runs: number; merged: number };
  backwards: string[];
  overlaps: string[];
  uncommitted: { steps: number; unexplained: string[] };
  seconds?: number;
  problems: string[];
  workerStderr: string[];
}

const LOST_OLD = "acked write lost older than 1 s before the kill (2 s more if Redis held it unwritten)";

const CHECKS: Check<RollbackPhaseResult>[] = [
  mustMatch(
    "rollbacks (Redis SIGKILLed and restarted) / asked",
    (r) => r.rollbacks.length,
    (r) => r.rollbacksAsked,
    "each rollback asked must happen",
  ),
  {
    // A rollback cuts nothing when the AOF did not grow in its last second (Redis held its writes unwritten
    // while a slow fsync ran: the kill alone loses those); the phase tested nothing if no rollback cut.
    label: "  of them, rollbacks that cut the AOF back",
    value: (r) => r.rollbacks.filter((b) => b.bytesCut > 0).length,
    problem: (r) =>
      r.rollbacks.some((b) => b.bytesCut > 0) ? undefined : "no rollback cut the AOF back: nothing was tested",
  },
  { label: "  AOF bytes cut, all rollbacks", value: (r) => r.rollbacks.reduce((a, b) => a + b.bytesCut, 0) },
  { label: "  Redis down per rollback, longest, ms", value: (r) => Math.max(...r.rollbacks.map((b) => b.downMs ?? 0)) },
  {
    label: "  jobs / ordered payloads / workflow runs sent (merged)",
    value: (r) => r.units && `${r.units.jobs} / ${r.units.payloads} / ${r.units.runs} (${r.units.merged})`,
  },
  {
    // A line a loss, the first ten, after the rollbacks' moments: each is told against them, with its history.
    label: `${LOST_OLD} (must be 0)`,
    value: (r) => r.lostOld.length,
    problem: (r) =>
      r.lostOld.length === 0
        ? undefined
        : [`${LOST_OLD}: ${r.lostOld.length} — ${describeRollbacks(r.rollbacks)}`, ...r.lostOld.slice(0, 10)].join(
            "\n  ",
          ),
  },
  mustBeZero(
    "fence gone backwards",
    (r) => r.backwards.length,
    (r) => r.backwards,
  ),
  // A restart that forgot a claim whose tick still runs it holds exclusive work for a lease, and that tick
  // loses its lease at its next extend (src/lua/lib/tick/restart-hold.lua): no second execution meanwhile.
  mustBeZero(
    "flow key overlap after a rollback",
    (r) => r.overlaps.length,
    (r) => r.overlaps,
  ),
  mustBeZero(
    "present but never completes",
    (r) => r.presentNotDone.length,
    (r) => r.presentNotDone,
  ),
  { label: "executions run again after a rollback", value: (r) => r.reran },
  { label: "enqueues lost in a rollback's last second", value: (r) => r.lostInWindow },
  { label: "  the oldest, ms before its kill", value: (r) => r.oldestLossMs },
  { label: "  sent before the kill, answered after it", value: (r) => r.lostAnsweredAfterKill },
  { label: "acks undone in a rollback's last second", value: (r) => r.undoneInWindow },
  { label: "runs again by a resent enqueue's second copy", value: (r) => r.rerunByResend },
  // A step still running graceMs after its signal aborted (here: its ledger writes, after its sleep, at load)
  // is left by its tick, which commits none of its round and keeps its lease; the run goes to another tick once
  // the lease expires and the step runs again (report.workflows.abandoned). A step whose commit Redis refused (a
  // rollback forgot the run's claim, unseen: report.workflows.lost) runs again too. Not acks, so not judged as one.
  { label: "steps whose commit the tick did not make", value: (r) => r.uncommitted.steps },
  // Ticks that held back more than those runs: once seen (a rollback forgot a claim made after the tick's last
  // extend, and the workflow call, which did not check for a restart, refused the commit with the lease taken as
  // held: test/integration/durability/rollback-forgets-a-workflow-claim.test.ts). A workflow call now answers such
  // a lease lost, and a refused commit counts in workflows.lost: a tick that still holds back more is a defect.
  mustBeZero(
    "  of them, ticks that held back more than the runs they left past graceMs or whose commit was not stored",
    (r) => r.uncommitted.unexplained.length,
    (r) => r.uncommitted.unexplained,
  ),
  { label: "rollback phase, seconds", value: (r) => r.seconds },
];

/** The phase's column: the judge's verdict on `evidence`, with its rows and the problems that fail it. */
export function rollbackColumn(
  adapter: AdapterName,
  rollbacksAsked: number,
  evidence: RollbackEvidence,
  extra: Pick<RollbackPhaseResult, "units" | "seconds"> & { workerStderr?: string[] } = {},
): Column {
  const result: RollbackPhaseResult = {
    ...judgeRollback(evidence),
    adapter,
    rollbacksAsked,
    rollbacks: evidence.rollbacks,
    backwards: evidence.backwards,
    overlaps: evidence.overlaps,
    uncommitted: evidence.uncommitted ?? { steps: 0, unexplained: [] },
    ...extra,
    problems: [],
    workerStderr: extra.workerStderr ?? [],
  };
  result.problems.push(...problemsOf(CHECKS, result));
  return columnOf(`rollback ${adapter}`, CHECKS, result);
}
