// What the rollback phase (bench/chaos/rollback-phase.ts) sends, and how:
// plain jobs, jobs of one concurrency-limit-1 key, until-executed jobs over a
// few keys, ordered payloads over a few ids and workflow runs of four steps,
// shuffled and spread over the window. Each send is tried again until it is
// answered (same jid, same run id, same payload: a resend that landed before
// its reply was lost changes nothing), and the moments the answered send
// was made and answered are kept: the judge holds a rollback to what it may
// forget by them (a write made between the two, before the kill).
import type { RollbackTickq } from "./rollback-jobs.js";
import { between, sleep, type Rng } from "./rng.js";

export type Send =
  | { kind: "plain" | "limited"; unit: string; ms: number }
  | { kind: "once"; unit: string; ms: number; key: string }
  | { kind: "ordered"; unit: string; id: string; n: number; ms: number }
  | { kind: "run"; unit: string; ms: number };

/** Units of each kind at scale 1 (the default run); unique and ordered keys stay few, so they are busy. */
const SIZE = { plain: 240, limited: 50, once: 50, onceKeys: 4, ordered: 160, orderedIds: 8, runs: 40 };

export function planSends(rng: Rng): Send[] {
  const sends: Send[] = [];
  for (let i = 0; i < SIZE.plain; i++) sends.push({ kind: "plain", unit: `j-${i}`, ms: between(rng, 0, 40) });
  for (let i = 0; i < SIZE.limited; i++) sends.push({ kind: "limited", unit: `l-${i}`, ms: between(rng, 50, 500) });
  for (let i = 0; i < SIZE.once; i++)
    sends.push({
      kind: "once",
      unit: `u-${i}`,
      ms: between(rng, 50, 500),
      key: `k${between(rng, 0, SIZE.onceKeys - 1)}`,
    });
  for (let n = 1; n <= SIZE.ordered; n++)
    sends.push({
      kind: "ordered",
      unit: `o-${n}`,
      id: `id-${between(rng, 0, SIZE.orderedIds - 1)}`,
      n,
      ms: between(rng, 50, 400),
    });
  for (let i = 0; i < SIZE.runs; i++) sends.push({ kind: "run", unit: `w-${i}`, ms: between(rng, 20, 200) });
  // Fisher–Yates, except that ordered payloads keep their numbering's order among themselves.
  for (let i = sends.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [sends[i], sends[j]] = [sends[j]!, sends[i]!];
  }
  let n = 0;
  for (const s of sends) if (s.kind === "ordered") (s.n = ++n), (s.unit = `o-${n}`);
  return sends;
}

export interface SendReport {
  /** Unit → when its send was answered (Date.now()). */
  acked: Map<string, number>;
  /**
   * Unit → when the send that was answered was made: Redis ran it between then and its answer. One made
   * before a kill and answered after it may have run on the Redis that died (its reply was on its way).
   */
  sentAt: Map<string, number>;
  /**
   * Unit → attempts made, the answered one included. An attempt that was not answered (a timeout) may still
   * land later, after the answered one: an ordered payload or a job can then run twice (a new call, a new token).
   */
  attempts: Map<string, number>;
  /** until-executed units answered another job's jid: that job holds their key, they never run themselves. */
  merged: Set<string>;
  resends: number;
}

async function sendOne(tq: RollbackTickq, s: Send): Promise<string> {
  switch (s.kind) {
    case "plain":
    case "limited":
      return tq.enqueue(s.kind, [s.unit, s.ms], { jid: s.unit });
    case "once":
      return tq.enqueue("once", [s.unit, s.ms, s.key], { jid: s.unit, unique: "until-executed" });
    case "ordered":
      await tq.enqueueOrdered("ordered", { id: s.id, payload: { n: s.n, ms: s.ms } });
      return s.unit;
    case "run":
      return tq.workflows.start("steps", { runId: s.unit, ms: s.ms }, { id: s.unit });
  }
}

/** Sends every unit over `windowMs`, each again until answered. */
export async function sendAll(tq: RollbackTickq, sends: Send[], windowMs: number): Promise<SendReport> {
  const report: SendReport = {
    acked: new Map(),
    sentAt: new Map(),
    attempts: new Map(),
    merged: new Set(),
    resends: 0,
  };
  const started = Date.now();
  for (const [k, s] of sends.entries()) {
    const wait = started + (k * windowMs) / sends.length - Date.now();
    if (wait > 0) await sleep(wait);
    for (let attempt = 1; ; attempt++) {
      const sentAt = Date.now();
      try {
        const answer = await sendOne(tq, s);
        if (answer !== s.unit) report.merged.add(s.unit);
        else {
          report.acked.set(s.unit, Date.now());
          report.sentAt.set(s.unit, sentAt);
          report.attempts.set(s.unit, attempt);
        }
        break;
      } catch (error) {
        if (++report.resends > 5_000)
          throw new Error(`chaos: a rollback send kept failing: ${(error as Error).message}`);
        await sleep(50);
      }
    }
  }
  return report;
}
