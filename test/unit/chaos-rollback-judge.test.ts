// The rollback phase's judge (bench/chaos/rollback-judge.ts), fed evidence by
// hand: what `appendfsync everysec` may forget (what was acknowledged after a
// rollback's kept moment, or up to 2 s before it that Redis held unwritten)
// must pass, and anything acknowledged before that
// is gone — an enqueue, an ack whose work ran again — must fail the phase,
// as must work left in Redis that never completed. An enqueue sent before a
// kill and answered after it may have run on the Redis that died.
import { describe, expect, it } from "vitest";
import { renderTable } from "../../bench/chaos/checks.js";
import {
  AOF_WRITE_STALL_MS,
  CLAIM_SLACK_MS,
  judgeRollback,
  rollbackColumn,
  type RollbackEvidence,
} from "../../bench/chaos/rollback-judge.js";

/** One rollback: Redis killed at 10,000, its AOF cut back to what it held at 9,200. */
const ROLLBACK = { killedAt: 10_000, keptUpTo: 9_200, bytesCut: 512 };

/** Two jobs enqueued long before the kill, each run once and acked long before it: nothing to find. */
function cleanEvidence(): RollbackEvidence {
  return {
    rollbacks: [ROLLBACK],
    enqueued: new Map([
      ["j-1", 1_000],
      ["j-2", 2_000],
    ]),
    histories: new Map([
      ["j-1", { starts: [1_100], successes: [{ endedAt: 1_150, ackedBy: 1_200 }] }],
      ["j-2", { starts: [2_100], successes: [{ endedAt: 2_150, ackedBy: 2_200 }] }],
    ]),
    completed: new Set(["j-1", "j-2"]),
    present: new Map(),
    backwards: [],
    overlaps: [],
  };
}

describe("the rollback phase's judge", () => {
  it("finds nothing wrong when everything acknowledged ran once and completed", () => {
    expect(judgeRollback(cleanEvidence())).toEqual({
      lostOld: [],
      lostInWindow: 0,
      lostAnsweredAfterKill: 0,
      undoneInWindow: 0,
      rerunByResend: 0,
      presentNotDone: [],
      reran: 0,
    });
  });

  it("allows an enqueue acknowledged after the rollback's kept moment to be gone, and counts it", () => {
    const e = cleanEvidence();
    e.enqueued.set("j-3", 9_500);
    const verdict = judgeRollback(e);
    expect(verdict.lostOld).toEqual([]);
    expect(verdict.lostInWindow).toBe(1);
  });

  it("allows an enqueue answered up to 2 s before the kept moment to be gone: Redis may have held it unwritten", () => {
    const e = cleanEvidence();
    e.enqueued.set("j-90", ROLLBACK.keptUpTo - AOF_WRITE_STALL_MS);
    e.enqueued.set("j-92", ROLLBACK.keptUpTo - 55);
    const verdict = judgeRollback(e);
    expect(verdict.lostOld).toEqual([]);
    expect(verdict.lostInWindow).toBe(2);
    expect(verdict.oldestLossMs).toBe(10_000 - 7_200);
  });

  it("fails an enqueue acknowledged before the kept moment that is gone", () => {
    const e = cleanEvidence();
    e.enqueued.set("j-3", 9_200 - AOF_WRITE_STALL_MS - 1);
    const verdict = judgeRollback(e);
    expect(verdict.lostOld).toHaveLength(1);
    expect(verdict.lostOld[0]).toContain("j-3: enqueue acknowledged at 7199 (2801 ms before the kill at 10000");
  });

  it("allows an enqueue sent before the kill and answered after it to be gone: Redis ran it before it died", () => {
    const e = cleanEvidence();
    // Answered 5 ms after the kill: the reply of a write the killed Redis made was still on its way.
    e.enqueued.set("o-29", 10_005);
    e.sent = new Map([["o-29", 9_990]]);
    const verdict = judgeRollback(e);
    expect(verdict.lostOld).toEqual([]);
    expect(verdict.lostInWindow).toBe(1);
    expect(verdict.lostAnsweredAfterKill).toBe(1);
  });

  it("fails an enqueue sent after the kill that is gone: only the restarted Redis can have run it", () => {
    const e = cleanEvidence();
    e.enqueued.set("o-29", 10_300);
    e.sent = new Map([["o-29", 10_001]]);
    expect(judgeRollback(e).lostOld).toEqual([
      "o-29: enqueue acknowledged at 10300 (after the last kill; 300 ms after the kill at 10000, down ? ms), gone; enqueue: attempt ? sent at 10001, answered at 10300; ledger: no execution recorded",
    ]);
  });

  it("reports a loss with the unit's ledger history, where it stands in Redis and the rollbacks' moments", () => {
    const e = cleanEvidence();
    e.rollbacks = [
      { killedAt: 3_000, keptUpTo: 2_400, bytesCut: 100, downMs: 150 },
      { ...ROLLBACK, downMs: 90 },
    ];
    e.enqueued.set("o-29", 3_306);
    e.sent = new Map([["o-29", 3_200]]);
    e.attempts = new Map([["o-29", 2]]);
    e.histories.set("o-29", { starts: [3_400], successes: [] });
    e.whereabouts = new Map([["o-29", "payload in no key of its id"]]);
    const column = rollbackColumn("upstash", 2, e);
    expect(column.problems).toHaveLength(1);
    expect(column.problems[0]).toContain(
      "rollbacks: kill 3000 (kept up to 2400, 600 ms before; cut 100 bytes; down 150 ms), kill 10000 (kept up to 9200, 800 ms before; cut 512 bytes; down 90 ms)",
    );
    expect(column.problems[0]).toContain(
      "o-29: enqueue acknowledged at 3306 (6694 ms before the kill at 10000, which kept up to 9200; 306 ms after the kill at 3000, down 150 ms), gone; enqueue: attempt 2 sent at 3200, answered at 3306; ledger: starts 3400, successes none; in Redis: payload in no key of its id",
    );
  });

  it("fails an enqueue gone with no rollback after it", () => {
    const e = cleanEvidence();
    e.enqueued.set("j-3", 11_000);
    expect(judgeRollback(e).lostOld).toEqual([
      "j-3: enqueue acknowledged at 11000 (after the last kill; 1000 ms after the kill at 10000, down ? ms), gone; enqueue: attempt ? sent at ?, answered at 11000; ledger: no execution recorded",
    ]);
  });

  it("does not count as lost a unit still in Redis, but fails it as present and never completed", () => {
    const e = cleanEvidence();
    e.enqueued.set("w-1", 3_000);
    e.present.set("w-1", "run sleeping");
    const verdict = judgeRollback(e);
    expect(verdict.lostOld).toEqual([]);
    expect(verdict.presentNotDone).toEqual(["w-1: run sleeping"]);
  });

  it("allows work to run again when its ack was acknowledged after the kept moment, and counts the rerun", () => {
    const e = cleanEvidence();
    e.histories.set("j-2", {
      starts: [9_000, 10_500],
      successes: [
        { endedAt: 9_300, ackedBy: 9_400 },
        { endedAt: 10_600, ackedBy: 10_700 },
      ],
    });
    const verdict = judgeRollback(e);
    expect(verdict.lostOld).toEqual([]);
    expect(verdict.undoneInWindow).toBe(1);
    expect(verdict.reran).toBe(1);
  });

  it("allows work to run again when the rollback forgot its claim, though its ack came after the restart", () => {
    const e = cleanEvidence();
    // Claimed and started in the lost second, ran across the kill, acked on the restarted Redis.
    e.histories.set("j-2", { starts: [9_600, 12_000], successes: [{ endedAt: 10_200, ackedBy: 10_400 }] });
    expect(judgeRollback(e).lostOld).toEqual([]);
  });

  it("fails work that ran again though its ack was acknowledged before the kept moment", () => {
    const e = cleanEvidence();
    e.histories.set("j-1", { starts: [1_100, 10_500], successes: [{ endedAt: 1_150, ackedBy: 1_200 }] });
    const verdict = judgeRollback(e);
    expect(verdict.lostOld).toEqual([
      "j-1: ran again at 10500 although its run of 1100–1150 was acked at 1200 (8800 ms before the kill at 10000, which kept up to 9200); enqueue: attempt ? sent at ?, answered at 1000; ledger: starts 1100, 10500, successes ended 1150 acked 1200",
    ]);
  });

  it("allows a unit whose enqueue was resent to run again: the answered send, a new call, came once it may have been claimed", () => {
    const e = cleanEvidence();
    // Attempt 1 timed out but landed and ran at 20,000; attempt 3, answered at 20,765, added the payload again.
    e.enqueued.set("o-45", 20_765);
    e.sent = new Map([["o-45", 20_517]]);
    e.attempts = new Map([["o-45", 3]]);
    e.completed.add("o-45");
    e.histories.set("o-45", {
      starts: [20_000, 21_400],
      successes: [
        { endedAt: 20_125, ackedBy: 20_722 },
        { endedAt: 21_558, ackedBy: 22_429 },
      ],
    });
    const verdict = judgeRollback(e);
    expect(verdict.lostOld).toEqual([]);
    expect(verdict.rerunByResend).toBe(1);
  });

  it("fails a rerun after an acked run when the enqueue was answered at its first attempt", () => {
    const e = cleanEvidence();
    e.enqueued.set("o-45", 19_900);
    e.attempts = new Map([["o-45", 1]]);
    e.completed.add("o-45");
    e.histories.set("o-45", {
      starts: [20_000, 21_400],
      successes: [
        { endedAt: 20_125, ackedBy: 20_722 },
        { endedAt: 21_558, ackedBy: 22_429 },
      ],
    });
    expect(judgeRollback(e).lostOld).toHaveLength(1);
  });

  it("does not judge a start that came before the ack was known answered", () => {
    const e = cleanEvidence();
    // Its tick returned (so the ack was answered) only after the other start: the ack may not have landed yet.
    e.histories.set("j-1", { starts: [11_000, 11_200], successes: [{ endedAt: 11_100, ackedBy: 11_300 }] });
    const verdict = judgeRollback(e);
    expect(verdict.lostOld).toEqual([]);
    expect(verdict.reran).toBe(1);
  });

  it("fails work that ran again after an acknowledged ack with no rollback between", () => {
    const e = cleanEvidence();
    e.histories.set("j-1", { starts: [1_100, 3_000], successes: [{ endedAt: 1_150, ackedBy: 1_200 }] });
    expect(judgeRollback(e).lostOld).toHaveLength(1);
  });

  it("claims no more slack before a start than a tick's budget and lease", () => {
    const e = cleanEvidence();
    // Started well over the slack after the kill: its claim came after the restart, so the rollback cannot explain a rerun.
    e.histories.set("j-2", {
      starts: [10_000 + CLAIM_SLACK_MS + 500, 20_000],
      successes: [{ endedAt: 10_000 + CLAIM_SLACK_MS + 600, ackedBy: 10_000 + CLAIM_SLACK_MS + 700 }],
    });
    expect(judgeRollback(e).lostOld).toHaveLength(1);
  });

  it("lets a claim precede its start by the time Redis was down too", () => {
    const e = cleanEvidence();
    // Started after the slack past the kill, but Redis was down 2 s of it: the tick waited to confirm its lease.
    const start = 10_000 + CLAIM_SLACK_MS + 1_500;
    e.rollbacks = [{ ...ROLLBACK, downMs: 2_000 }];
    e.histories.set("j-2", { starts: [start, 20_000], successes: [{ endedAt: start + 100, ackedBy: start + 200 }] });
    expect(judgeRollback(e).lostOld).toEqual([]);
  });

  it("fails the column on a fence gone backwards, an overlap, a loss or too few rollbacks, and passes a clean one", () => {
    const clean = rollbackColumn("ioredis", 1, cleanEvidence());
    expect(clean.problems).toEqual([]);
    expect(renderTable([clean])).toContain(
      "acked write lost older than 1 s before the kill (2 s more if Redis held it unwritten) (must be 0)",
    );
    const e = cleanEvidence();
    e.backwards.push("ord:id-1: fence 5 after 7");
    e.overlaps.push("limit:one: 2:3 entered while 1:9 held it (limit 1)");
    e.enqueued.set("j-3", 100);
    e.rollbacks = [{ ...ROLLBACK, bytesCut: 0 }];
    const broken = rollbackColumn("ioredis", 2, e);
    expect(broken.problems).toHaveLength(5);
    expect(broken.problems.join("\n")).toMatch(/fence gone backwards: 1 — ord:id-1/);
    expect(broken.problems.join("\n")).toMatch(/flow key overlap after a rollback: 1 — limit:one: 2:3 entered/);
    expect(renderTable([broken])).toMatch(/flow key overlap after a rollback \(must be 0\) +1/);
    expect(broken.problems.join("\n")).toMatch(/acked write lost .*: 1 — rollbacks: kill 10000 .*\n {2}j-3: enqueue/);
    expect(broken.problems.join("\n")).toMatch(/rollbacks \(Redis SIGKILLed and restarted\) \/ asked: 1 ≠ 2/);
    expect(broken.problems.join("\n")).toMatch(/no rollback cut the AOF back/);
  });

  it("counts workflow steps a tick left uncommitted, and fails on a tick that held back more than the runs it reported", () => {
    const e = cleanEvidence();
    e.uncommitted = { steps: 7, unexplained: [] };
    const counted = rollbackColumn("upstash", 1, e);
    expect(counted.problems).toEqual([]);
    expect(renderTable([counted])).toMatch(/steps whose commit the tick did not make +7/);
    const why = "tick t-1 ran 3 steps, committed 2, left 0 runs past graceMs, 0 runs' commits not stored";
    e.uncommitted = { steps: 8, unexplained: [why] };
    const unexplained = rollbackColumn("upstash", 1, e);
    expect(renderTable([unexplained])).toMatch(
      /ticks that held back more than the runs they left past graceMs or whose commit was not stored \(must be 0\) +1/,
    );
    expect(unexplained.problems.join("\n")).toContain(why);
  });
});
