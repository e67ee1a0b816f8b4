// The model of the property test (test/integration/tick/scripts-against-model.test.ts): where every job
// must be, what the counters must say, which ticks hold a lease and a
// registration. It follows the scripts' contract, not their code: an ack
// acts only on a job still in that tick's inproc list; a replayed call
// answers its kept reply and changes nothing; a dead tick's jobs go back to
// their queues. `snapshot` reads the whole state of a prefix from Redis and
// `compare` says how it differs from the model.
import type { Redis } from "ioredis";

export const QUEUES = ["a", "b"] as const;

export type Loc =
  | { k: "queue"; q: string }
  | { k: "schedule" }
  | { k: "retry" }
  | { k: "dead" }
  | { k: "inproc"; tick: string; q: string }
  | { k: "done" }
  | { k: "evicted" };

export interface ModelJob {
  jid: string;
  queue: string;
  /** The JSON enqueue sent (no created_at): the stored string is learnt from Redis once. */
  sent: string;
  /** The string as stored now; null until learnt after enqueue. */
  raw: string | null;
  loc: Loc;
  /** zset score (seconds) while in schedule, retry or dead; Infinity: "far in the future". */
  score: number;
}

export interface Lease {
  seq: number;
  kept: unknown;
}

export class Model {
  jobs = new Map<string, ModelJob>();
  processed = 0;
  failed = 0;
  deadEvicted = 0;
  /** `resurrections`: job string → count; `interruptions` under interruptionKey(job string). */
  counts = new Map<string, number>();
  lock: string | null = null;
  registered = new Set<string>();
  /** Ticks whose begin ran: a tick starts once. */
  begun = new Set<string>();
  leases = new Map<string, Lease>();
  /** Every tick id ever begun: its keys are read at each snapshot. */
  ticks: string[] = [];

  job(raw: string): ModelJob | undefined {
    return this.jobs.get(jidOf(raw));
  }

  inproc(tick: string): ModelJob[] {
    return [...this.jobs.values()].filter((j) => j.loc.k === "inproc" && j.loc.tick === tick);
  }

  bumpCount(raw: string): void {
    this.counts.set(raw, (this.counts.get(raw) ?? 0) + 1);
  }

  /** Jobs a dead tick left behind (`suspects`, by job string): the model's ticks run none alone, so no death is counted. */
  suspects = new Set<string>();
}

/** The model keeps `interruptions` beside `resurrections`, its keys marked. */
export const interruptionKey = (raw: string): string => `i:${raw}`;

export const jidOf = (raw: string): string => String((JSON.parse(raw) as { jid: unknown }).jid);

export const sameLoc = (a: Loc, b: Loc): boolean => JSON.stringify(a) === JSON.stringify(b);

export const showLoc = (l: Loc): string =>
  l.k === "queue" ? `queue:${l.q}` : l.k === "inproc" ? `inproc:${l.tick}:${l.q}` : l.k;

export interface Place {
  loc: Loc;
  raw: string;
  score: number;
}

export interface Snapshot {
  places: Map<string, Place[]>;
  /** Strings that are no job this run enqueued. */
  strangers: string[];
  registered: Set<string>;
  leases: Map<string, number>;
  processed: number;
  failed: number;
  deadEvicted: number;
  counts: Map<string, number>;
  lock: string | null;
  queueSet: Set<string>;
}

/** Reads everything under `prefix` that the model speaks of, in one pipeline. */
export async function snapshot(redis: Redis, prefix: string, ticks: string[]): Promise<Snapshot> {
  const lists: [Loc, string][] = [];
  for (const q of QUEUES) lists.push([{ k: "queue", q }, `${prefix}queue:${q}`]);
  for (const tick of ticks)
    for (const q of QUEUES) lists.push([{ k: "inproc", tick, q }, `${prefix}inproc:${tick}:${q}`]);
  const sets = ["schedule", "retry", "dead"] as const;

  const p = redis.pipeline();
  for (const [, key] of lists) p.lrange(key, 0, -1);
  for (const set of sets) p.zrange(`${prefix}${set}`, "0", "-1", "WITHSCORES");
  p.hgetall(`${prefix}ticks`);
  for (const tick of ticks) p.hget(`${prefix}tick:${tick}`, "seq");
  p.mget(`${prefix}stat:processed`, `${prefix}stat:failed`, `${prefix}stat:dead_evicted`);
  p.hgetall(`${prefix}resurrections`);
  p.hgetall(`${prefix}interruptions`);
  p.get(`${prefix}resurrector`);
  p.smembers(`${prefix}queues`);
  const replies = (await p.exec())!.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
  let r = 0;
  const next = <T>() => replies[r++] as T;

  const snap: Snapshot = {
    places: new Map(),
    strangers: [],
    registered: new Set(),
    leases: new Map(),
    processed: 0,
    failed: 0,
    deadEvicted: 0,
    counts: new Map(),
    lock: null,
    queueSet: new Set(),
  };
  const place = (loc: Loc, raw: string, score: number) => {
    let jid: string;
    try {
      jid = jidOf(raw);
    } catch {
      snap.strangers.push(raw);
      return;
    }
    const at = snap.places.get(jid) ?? [];
    at.push({ loc, raw, score });
    snap.places.set(jid, at);
  };
  for (const [loc] of lists) for (const raw of next<string[]>()) place(loc, raw, NaN);
  for (const set of sets) {
    const flat = next<string[]>();
    for (let i = 0; i < flat.length; i += 2) place({ k: set }, flat[i]!, Number(flat[i + 1]));
  }
  snap.registered = new Set(Object.keys(next<Record<string, string>>()));
  for (const tick of ticks) {
    const seq = next<string | null>();
    if (seq !== null) snap.leases.set(tick, Number(seq));
  }
  const [processed, failed, evicted] = next<(string | null)[]>();
  snap.processed = Number(processed ?? 0);
  snap.failed = Number(failed ?? 0);
  snap.deadEvicted = Number(evicted ?? 0);
  snap.counts = new Map(Object.entries(next<Record<string, string>>()).map(([k, v]) => [k, Number(v)]));
  for (const [k, v] of Object.entries(next<Record<string, string>>())) snap.counts.set(interruptionKey(k), Number(v));
  snap.lock = next<string | null>();
  snap.queueSet = new Set(next<string[]>());
  return snap;
}

/**
 * Learns the stored strings of newly enqueued jobs (enqueue.lua appends
 * Redis' time as created_at, and enqueued_at when pushed), checking that
 * nothing else of the sent JSON changed.
 */
export function learnRaws(model: Model, snap: Snapshot): string[] {
  const problems: string[] = [];
  for (const job of model.jobs.values()) {
    if (job.raw !== null) continue;
    const raw = snap.places.get(job.jid)?.[0]?.raw;
    if (raw === undefined) continue; // compare() reports it missing
    const stamp = String.raw`\d+\.\d{3}`;
    const tail =
      job.loc.k === "queue" ? `,"created_at":(${stamp}),"enqueued_at":(${stamp})\\}` : `,"created_at":${stamp}\\}`;
    const escaped = job.sent.slice(0, -1).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const m = new RegExp(`^${escaped}${tail}$`).exec(raw);
    if (!m || (job.loc.k === "queue" && m[1] !== m[2]))
      problems.push(`job ${job.jid} stored as ${raw}, sent ${job.sent}`);
    job.raw = raw;
  }
  return problems;
}

/** Every way Redis differs from the model; empty when they agree. */
export function compare(model: Model, snap: Snapshot, nowSec: number): string[] {
  const problems: string[] = [];
  for (const raw of snap.strangers) problems.push(`a string that is no job: ${raw}`);
  for (const [jid, places] of snap.places) {
    const job = model.jobs.get(jid);
    const where = places.map((p) => showLoc(p.loc)).join(" and ");
    if (!job) {
      problems.push(`job ${jid} was never enqueued, found in ${where}`);
      continue;
    }
    if (places.length > 1)
      problems.push(`job ${jid} is in ${places.length} places: ${where} (model: ${showLoc(job.loc)})`);
    if (job.loc.k === "done" || job.loc.k === "evicted") {
      problems.push(`job ${jid} is ${job.loc.k} in the model, but found in ${where}`);
      continue;
    }
    const place = places[0]!;
    if (places.length > 1) continue;
    if (!sameLoc(place.loc, job.loc)) problems.push(`job ${jid} should be in ${showLoc(job.loc)}, found in ${where}`);
    else if (job.raw !== null && place.raw !== job.raw)
      problems.push(`job ${jid} in ${where} is ${place.raw}, model ${job.raw}`);
    else if (job.loc.k === "schedule" || job.loc.k === "retry" || job.loc.k === "dead") {
      const ok = job.score === Infinity ? place.score > nowSec + 60 : Math.abs(place.score - job.score) < 0.002;
      if (!ok) problems.push(`job ${jid} in ${where} has score ${place.score}, model ${job.score}`);
    }
  }
  for (const job of model.jobs.values()) {
    if (job.loc.k !== "done" && job.loc.k !== "evicted" && !snap.places.has(job.jid)) {
      problems.push(`job ${job.jid} is nowhere (model: ${showLoc(job.loc)}): lost`);
    }
  }
  const counters = {
    processed: [snap.processed, model.processed],
    failed: [snap.failed, model.failed],
    dead_evicted: [snap.deadEvicted, model.deadEvicted],
  };
  for (const [name, [got, want]] of Object.entries(counters)) {
    if (got !== want) problems.push(`stat:${name} is ${got}, the model counted ${want}`);
  }
  const sorted = (s: Iterable<string>) => [...s].sort().join(",");
  for (const tick of model.ticks) {
    const listed =
      model.inproc(tick).length > 0 ||
      [...snap.places.values()].some((ps) => ps.some((p) => p.loc.k === "inproc" && p.loc.tick === tick));
    if (listed && !snap.registered.has(tick))
      problems.push(`tick ${tick} has jobs in its inproc lists but is not registered: orphaned`);
  }
  if (sorted(snap.registered) !== sorted(model.registered)) {
    problems.push(`registered ticks are [${sorted(snap.registered)}], model [${sorted(model.registered)}]`);
  }
  const leases = (m: Map<string, number>) => sorted([...m].map(([t, s]) => `${t}@${s}`));
  const modelLeases = new Map([...model.leases].map(([t, l]) => [t, l.seq]));
  if (leases(snap.leases) !== leases(modelLeases))
    problems.push(`leases are [${leases(snap.leases)}], model [${leases(modelLeases)}]`);
  if (snap.lock !== model.lock) problems.push(`resurrector lock held by ${snap.lock}, model ${model.lock}`);
  const counts = (m: Map<string, number>) => sorted([...m].map(([raw, n]) => `${raw}=${n}`));
  if (counts(snap.counts) !== counts(model.counts)) {
    const name = (key: string) => (key.startsWith("i:") ? `interrupted ${jidOf(key.slice(2))}` : jidOf(key));
    const show = (m: Map<string, number>) => sorted([...m].map(([key, n]) => `${name(key)}=${n}`));
    problems.push(`resurrections are [${show(snap.counts)}], model [${show(model.counts)}] (by job string)`);
  }
  for (const job of model.jobs.values()) {
    if (job.loc.k === "queue" && !snap.queueSet.has(job.loc.q))
      problems.push(`queue ${job.loc.q} holds jobs but is not in the queues set`);
  }
  return problems;
}
