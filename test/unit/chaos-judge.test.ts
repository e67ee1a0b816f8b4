// The chaos judge (bench/chaos/verify.ts), fed evidence by hand: what
// `npm run chaos` and test/integration/tick/chaos-short-run.test.ts both rely on to say "0 lost" must
// itself fail on a loss, a miscount, or faults it was not given.
import { describe, expect, it } from "vitest";
import { renderTable } from "../../bench/chaos/checks.js";
import type { FaultCounts } from "../../bench/chaos/faults.js";
import { RATE, type PlannedJob } from "../../bench/chaos/jobs.js";
import { entry, type LedgerView } from "../../bench/chaos/ledger.js";
import { judge, phaseColumn, type Evidence, type Place, type PhaseRun } from "../../bench/chaos/verify.js";
import type { Stats } from "../../src/stats/types.js";

const job = (id: string, kind: PlannedJob["kind"], key = "", extra: Partial<PlannedJob> = {}): PlannedJob => ({
  id,
  kind,
  args: [id, 0, 0, key],
  attempts: 1,
  ...extra,
});

/** One job of every kind, each ended as planned, and one duplicate of a coalesce key merged into the job holding it. */
function cleanEvidence(): Evidence {
  const plan = [
    job("p", "plain"),
    job("d", "delayed"),
    job("f", "flaky", "", { args: ["f", 0, 1, ""], attempts: 2 }),
    job("x", "doomed", "", { attempts: 2 }),
    job("e", "exclusive", "ke", { unique: "while-executing" }),
    job("l", "limited", "kl"),
    job("r", "rated", "kr"),
    job("o1", "once", "ko", { unique: "until-executed", args: ["o1", 0, 1, "ko"], attempts: 2 }),
    job("c1", "coalesced", "kc", { unique: "coalesce" }),
    job("c2", "coalesced", "kc", { unique: "coalesce" }),
  ];
  const ledger: LedgerView = {
    start: new Map(),
    ok: new Map(),
    fail: new Map(),
    rated: new Map([["kr", [1_000]]]),
    stamps: new Map(),
    overlaps: [],
  };
  const run = (id: string, attempt: number, ok: boolean) => {
    ledger.start.set(entry(id, attempt), 1);
    (ok ? ledger.ok : ledger.fail).set(entry(id, attempt), 1);
  };
  for (const id of ["p", "d", "e", "l", "r", "c1"]) run(id, 1, true);
  run("f", 1, false);
  run("f", 2, true);
  run("o1", 1, false);
  run("o1", 2, true);
  run("x", 1, false);
  run("x", 2, false);
  const places = new Map<string, Place[]>([["x", ["dead"]]]);
  return {
    plan,
    ledger,
    places,
    stats: stats(12, 4),
    answers: { answered: new Map([["c2", "c1"]]), resent: new Set() },
  };
}

function stats(processed: number, failed: number): Stats {
  return {
    processed,
    failed,
    expired: 0,
    queues: {},
    latency: {},
    scheduled: 0,
    retry: 0,
    dead: 1,
    deadEvicted: 0,
    cancelled: 0,
    inflight: 0,
    running: 0,
    fetchedWaiting: 0,
    ticks: 0,
    evictionPolicy: "noeviction",
    paused: [],
    lastTickAt: null,
    warnings: [],
    unstartable: [],
    ordered: {},
    schedules: 0,
    flow: {},
    workflows: {},
  };
}

const faults: FaultCounts = {
  "client-kill": 3,
  "client-pause": 3,
  "redis-restart": 3,
  "worker-kill": 3,
  "drop-tcp": 3,
};
/** `id`'s first attempt started at `atMs` and succeeded, as the ledger records it. */
function ranOnce(e: Evidence, id: string, atMs: number): void {
  e.ledger.start.set(entry(id, 1), 1);
  e.ledger.ok.set(entry(id, 1), 1);
  e.ledger.stamps.set(id, [atMs]);
}

const phaseRun = (over: Partial<PhaseRun> = {}): PhaseRun => ({
  adapter: "ioredis",
  faults,
  faultsAsked: 3,
  enqueueRetries: 0,
  workerCrashes: 0,
  settled: true,
  settleSeconds: 15,
  seconds: 1,
  workerStderr: [],
  ...over,
});

describe("the chaos judge", () => {
  it("finds nothing wrong with a phase where every job ended as planned", () => {
    const verdict = judge(cleanEvidence(), phaseRun());
    expect(verdict.problems).toEqual([]);
    expect({
      lost: verdict.lost,
      merged: verdict.merged,
      processed: verdict.plannedProcessed,
      failed: verdict.plannedFailed,
    }).toEqual({ lost: 0, merged: 1, processed: 12, failed: 4 });
  });

  it.each(["until-executed", "coalesce"] as const)(
    "counts as lost a %s job answered its own jid after a resend that never ran, though another job of its key succeeded",
    (unique) => {
      const e = cleanEvidence();
      const kind = unique === "coalesce" ? "coalesced" : "once";
      const key = unique === "coalesce" ? "kc" : "ko";
      e.plan.push(
        job("gone", kind, key, {
          unique,
          args: ["gone", 0, kind === "once" ? 1 : 0, key],
          attempts: kind === "once" ? 2 : 1,
        }),
      );
      e.answers.resent.add("gone");
      const verdict = judge(e, phaseRun());
      expect(verdict.lost).toBe(1);
      expect(verdict.lostIds[0]).toMatch(/^gone /);
      expect(verdict.problems.join("\n")).toMatch(/^lost: 1/m);
      // Its attempts are still planned: tickq was given it to run.
      expect(verdict.plannedProcessed).toBe(12 + (kind === "once" ? 2 : 1));
    },
  );

  it("fails a phase whose processed count matches the ledger but not the planned attempts (a doomed job dead one attempt early)", () => {
    const e = cleanEvidence();
    e.ledger.start.delete(entry("x", 2));
    e.ledger.fail.delete(entry("x", 2));
    e.stats = stats(11, 3);
    const verdict = judge(e, phaseRun());
    expect(verdict.processed).toBe(verdict.ledgerFinished);
    expect(verdict.problems.join("\n")).toMatch(/processed: stats\(\) \/ planned attempts: 11 ≠ 12/);
    expect(verdict.problems.join("\n")).toMatch(/failed: stats\(\) \/ planned failures: 3 ≠ 4/);
  });

  it("counts an expiring job recorded expired as ended, and fails a phase where one started after its record", () => {
    const e = cleanEvidence();
    e.plan.push(job("ex1", "expiring"), job("ex2", "expiring"));
    // ex1 ran before its expiry; ex2 was recorded expired at 10,000 ms without running.
    ranOnce(e, "ex1", 5_000);
    e.expired = new Map([["ex2", 10_000]]);
    e.stats = { ...stats(13, 4), expired: 1 };
    const clean = judge(e, phaseRun());
    expect(clean.problems).toEqual([]);
    expect([clean.expiringRan, clean.expiredOnly, clean.plannedProcessed]).toEqual([1, 1, 13]);
    // A start of ex2 stamped after its record: the promise broke.
    ranOnce(e, "ex2", 10_400);
    expect(judge(e, phaseRun()).problems.join("\n")).toMatch(
      /an expired job ran: 1 — ex2 started 400 ms after its record/,
    );
  });

  it("accepts one more processed for a job that ran and was acked, then expired as a resent copy, and no more", () => {
    const e = cleanEvidence();
    e.plan.push(job("ex1", "expiring"));
    // ex1 ran and was acked (processed 13), then a copy from a resent enqueue expired: recorded expired.
    ranOnce(e, "ex1", 5_000);
    e.expired = new Map([["ex1", 10_000]]);
    e.stats = { ...stats(13, 4), expired: 1 };
    const acked = judge(e, phaseRun());
    expect([acked.plannedProcessed, acked.ambiguousProcessed]).toEqual([12, 1]);
    expect(acked.problems).toEqual([]);
    // Or its ack never settled and it expired when put back: processed 12, also fine.
    e.stats = { ...stats(12, 4), expired: 1 };
    expect(judge(e, phaseRun()).problems).toEqual([]);
    // Two more than planned is beyond what the expired job explains.
    e.stats = { ...stats(14, 4), expired: 1 };
    expect(judge(e, phaseRun()).problems.join("\n")).toMatch(
      /processed: stats\(\) \/ planned attempts: 14 ≠ 12 \(up to \+1/,
    );
  });

  it("fails a phase where a kind of fault was injected fewer times than asked", () => {
    const verdict = judge(cleanEvidence(), phaseRun({ faults: { ...faults, "redis-restart": 1 } }));
    expect(verdict.problems).toEqual([
      "faults: redis-restart injected 1 times of the 3 asked (the injector ran out of time)",
    ]);
  });

  it("fails a phase whose rate-limited key started more than twice its limit within one period", () => {
    const e = cleanEvidence();
    const spread = Array.from({ length: 3 * RATE.limit }, (_, i) => 1_000 + i * (RATE.periodMs / RATE.limit));
    e.ledger.rated.set("kr", spread);
    expect(judge(e, phaseRun()).problems).toEqual([]);
    const burst = Array.from({ length: 2 * RATE.limit + 1 }, (_, i) => 5_000 + i);
    e.ledger.rated.set("kr", [...spread, ...burst]);
    expect(judge(e, phaseRun()).problems.join("\n")).toMatch(
      /rate-limited starts beyond twice the limit in a period: 1 — kr: 7 starts from 5000 ms/,
    );
  });

  it("fails a phase over HTTP that never tried dropping a response", () => {
    const verdict = judge(cleanEvidence(), phaseRun({ adapter: "upstash" }));
    expect(verdict.problems).toEqual(["faults never tried over upstash: drop-http"]);
  });

  it("fails a phase that did not settle, or whose plan could not exercise every flow kind or a merge", () => {
    const e = cleanEvidence();
    e.plan = e.plan.filter((j) => j.kind !== "rated");
    e.answers.answered.clear();
    e.plan = e.plan.filter((j) => j.id !== "c2");
    const problems = judge(e, phaseRun({ settled: false })).problems.join("\n");
    expect(problems).toMatch(/no rated job/);
    expect(problems).toMatch(/no duplicate of a unique key was merged/);
    expect(problems).toMatch(/still left after 15 s/);
  });

  it("fails a phase that settled with a flow slot still held: no ack or resurrection freed it, so its key would crawl", () => {
    const leakedSlots = ["flow:held:c:limited:k0: tick1 jid1"];
    const problems = judge(cleanEvidence(), phaseRun({ leakedSlots })).problems;
    expect(problems).toEqual(["flow slots held once the work ran out: 1 — flow:held:c:limited:k0: tick1 jid1"]);
  });

  it("says why a phase did not settle and how its flow keys stood, so a leaked slot is told from a slow key", () => {
    const settle = { settled: false, seconds: 95, workAtStart: 444, workAtEnd: 135, why: "no progress for 60 s" };
    const flowKeys = ["c:limited:k0: holders [], parked 135, queued 0"];
    const problems = judge(cleanEvidence(), phaseRun({ settled: false, settle, flowKeys })).problems;
    expect(problems).toEqual([
      "work was still left: no progress for 60 s; flow keys: c:limited:k0: holders [], parked 135, queued 0",
    ]);
    const rows = new Map(phaseColumn(judge(cleanEvidence(), phaseRun({ settled: false, settle }))).rows);
    expect(rows.get("settled")).toBe("no: 444 → 135 left in 95 s");
  });

  it("prints each check as a row, '—' where a phase does not measure it, and the verdict", () => {
    const ok = phaseColumn(judge(cleanEvidence(), phaseRun()));
    const bad = phaseColumn(
      judge(cleanEvidence(), phaseRun({ adapter: "upstash", faults: { ...faults, "drop-http": 0 } })),
    );
    const table = renderTable([ok, bad]);
    expect(table).toMatch(/^faults: drop-http +— +0$/m);
    expect(table).toMatch(/^lost \(must be 0\) +0 +0$/m);
    expect(table).toMatch(/^verdict +ok +FAILED$/m);
  });
});
