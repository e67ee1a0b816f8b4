// The driver of the property test (test/integration/tick/scripts-against-model.test.ts): it runs each
// operation against Redis through the scripts themselves (runScript, no
// tick/run.ts), as a tick would — numbered calls, acks of what it holds, a step
// whose reply is lost carried into finish as pipeline.ts does — and applies
// the same operation to the model (job-model.ts) as the scripts' contract
// says it should act. After each operation `check` reads Redis and lists
// every difference.
import { isDeepStrictEqual } from "node:util";
import type { Redis } from "ioredis";
import { encodeNewJob } from "../../src/job/codec.js";
import { spliceFields, topLevelFields } from "../../src/job/json-splice.js";
import { ackArgs, ackOrder, type Outcome } from "../../src/tick/passes/ack.js";
import type { FetchedJob } from "../../src/tick/passes/fetch.js";
import { housekeepArgs } from "../../src/tick/passes/housekeep.js";
import { fetchArgs } from "../../src/tick/queue-order.js";
import { asArray, asNumber, runScript } from "../../src/redis/adapter.js";
import type { RedisAdapter, RedisReply } from "../../src/redis/types.js";
import {
  compare,
  interruptionKey,
  learnRaws,
  Model,
  QUEUES,
  sameLoc,
  showLoc,
  snapshot,
  type Snapshot,
} from "./job-model.js";
import { deleteUnder, sleep, uniquePrefix } from "./redis.js";
import { fetchedJobs } from "./begin-args.js";
import { ENQUEUE_KEYS } from "./tick-calls.js";
import { encode } from "../../src/protocol/define.js";
import * as protocol from "../../src/protocol/index.js";

const PLAN = { names: [...QUEUES], cumulative: null };
const LEASE_MS = 60_000;
const LOCK_MS = 60_000;
const DEAD_MAX_AGE_S = 10 * 365 * 86_400;
const REPLAY_WINDOW_MS = 60_000;
const ID_WINDOW_MS = 86_400_000;
const FUTURE_MS = 3_600_000;
const MAX_LIVE_TICKS = 3;

export type When = "now" | "delay" | "atPast" | "atFuture";
export type Kind = "ok" | "retry0" | "retryLater" | "dead" | "discard" | "q" | "i";
export interface AckPick {
  pick: number;
  outcome: Kind;
}

/**
 * One operation. Ticks and jobs are named by index (modulo what exists), so
 * every sequence fast-check draws or shrinks to stays meaningful; an
 * operation with nothing to act on does nothing.
 * - dup: the call is sent twice at once (a resend after a lost reply); the tick uses the second reply.
 * - lose: the call runs but the tick never gets its reply and gives up: after begin or finish it
 *   stops; after a step it carries that step's acks into finish, as pipeline.ts does.
 * - replay: a late duplicate of a tick's last call (or of an older one), whose reply nobody reads.
 * - kill: the tick is never driven again; its lease lives until expireLease.
 * - finish: acks the picked jobs and, unless `leave`, puts the rest back as not started.
 */
export type Op =
  | { t: "enqueue"; jobs: { queue: "a" | "b"; when: When; own: boolean }[] }
  | { t: "replayEnqueue"; pick: number }
  | { t: "enqueueOwnAgain"; pick: number; withFresh: boolean }
  | { t: "begin"; batch: number; dup: boolean; lose: boolean }
  | { t: "step"; tick: number; acks: AckPick[]; fetch: number; dup: boolean; lose: boolean }
  | { t: "housekeep"; tick: number; dup: boolean }
  | { t: "finish"; tick: number; acks: AckPick[]; leave: boolean; dup: boolean; lose: boolean }
  | { t: "replay"; tick: number; older: number | null }
  | { t: "kill"; tick: number }
  | { t: "expireLease"; tick: number; pexpire: boolean }
  | { t: "expireLock" }
  | { t: "makeDue"; retry: boolean; pick: number };

export interface Config {
  deadMax: number;
  resurrectLimit: number;
  scheduleLimit: number;
}

interface Call {
  kind: "begin" | "step" | "housekeep" | "finish";
  seq: number;
  args: (string | number)[];
  outcomes: Outcome[];
  /** Fetch size of begin or step. */
  batch: number;
}

interface Tick {
  id: string;
  /** failing: a step's reply was lost for good; only finish follows (pipeline.ts). */
  status: "running" | "failing" | "killed" | "done";
  /** Fetched, as far as the tick knows, and not acked yet. */
  held: Map<string, FetchedJob>;
  /** Acks of a step whose reply never came: pipeline.ts sends them again with finish. */
  carried: Outcome[];
  calls: Call[];
  seq: number;
}

interface EnqueueEntry {
  jid: string;
  queue: string;
  delay: number;
  at: number;
  own: boolean;
  json: string;
}

/** A resurrect pass that could not move every candidate (limit reached): resolved from Redis. */
interface Pending {
  ctx: string;
  reported: number;
  moved: number;
  jobs: Set<string>;
  ticks: string[];
}

/** The job as the delayed pass pushes it: `enqueued_at` set to the move's time, as text ("%.3f"). */
function withEnqueuedAt(raw: string, nowSec: number): string {
  const stamp = nowSec.toFixed(3);
  const span = topLevelFields(raw)?.get("enqueued_at");
  if (span) return raw.slice(0, span.start) + stamp + raw.slice(span.end);
  const close = raw.lastIndexOf("}");
  return `${raw.slice(0, close)},"enqueued_at":${stamp}${raw.slice(close)}`;
}

/** The job with its error fields spliced in, as execute.ts does; retry_count grows, so every failure is a new string. */
function failed(raw: string): string {
  const count = (JSON.parse(raw) as { retry_count?: number }).retry_count;
  return spliceFields(raw, {
    error_message: "boom",
    error_class: "Error",
    failed_at: 1,
    retry_count: count === undefined ? 0 : count + 1,
  })!;
}

function outcomeFor(job: FetchedJob, kind: Kind): Outcome {
  switch (kind) {
    case "ok":
      return { kind: "succeeded", job };
    case "retry0":
      return { kind: "retry", job, updated: failed(job.raw), delaySec: 0 };
    case "retryLater":
      return { kind: "retry", job, updated: failed(job.raw), delaySec: 3_600 };
    case "dead":
      return { kind: "dead", job, updated: failed(job.raw), handlerFailed: true };
    case "discard":
      return { kind: "discarded", job };
    case "q":
      return { kind: "unstarted", job };
    case "i":
      return { kind: "interrupted", job };
  }
}

/** What the runs exercised, printed with PROP_STATS=1 (to tune the weights above). */
export const TALLY = new Map<string, number>();
const tally = (key: string, by = 1) => void TALLY.set(key, (TALLY.get(key) ?? 0) + by);
const show = (v: unknown) => JSON.stringify(v);

class World {
  readonly model = new Model();
  readonly ticks: Tick[] = [];
  private readonly enqueues: { args: (string | number)[]; reply: RedisReply }[] = [];
  private readonly ownEntries: EnqueueEntry[] = [];
  private readonly remembered = new Set<string>();
  private deferred: (() => void)[] = [];
  private pending: Pending | null = null;
  private problems: string[] = [];
  private jidSeq = 0;

  constructor(
    private readonly adapter: RedisAdapter,
    private readonly redis: Redis,
    readonly prefix: string,
    private readonly cfg: Config,
    private readonly tag: string,
  ) {}

  private problem(message: string): void {
    this.problems.push(message);
  }

  private want(what: string, got: unknown, expected: unknown): void {
    if (!isDeepStrictEqual(got, expected)) this.problem(`${what}: got ${show(got)}, expected ${show(expected)}`);
  }

  async run(op: Op): Promise<void> {
    tally(`op:${op.t}`);
    switch (op.t) {
      case "enqueue":
        return void (await this.enqueue(op.jobs.map((s) => this.newEntry(s.queue, s.when, s.own))));
      case "replayEnqueue": {
        if (this.enqueues.length === 0) return;
        const first = this.enqueues[op.pick % this.enqueues.length]!;
        const reply = await this.runEnqueue(first.args);
        return this.want(`replayed enqueue ${first.args[0]}`, reply, first.reply);
      }
      case "enqueueOwnAgain": {
        if (this.ownEntries.length === 0) return;
        const again = this.ownEntries[op.pick % this.ownEntries.length]!;
        return void (await this.enqueue(op.withFresh ? [again, this.newEntry(again.queue, "now", true)] : [again]));
      }
      case "begin":
        return this.begin(op);
      case "step":
        return this.step(op);
      case "housekeep": {
        const tick = this.pick(op.tick, ["running"]);
        if (!tick) return;
        const seq = ++tick.seq;
        const c: Call = {
          kind: "housekeep",
          seq,
          args: encode(protocol.housekeep, this.keys(tick), {
            tickId: tick.id,
            call: String(seq),
            housekeep: this.housekeeping(),
          }).args,
          outcomes: [],
          batch: 0,
        };
        tick.calls.push(c);
        await this.send(tick, c);
        if (op.dup) await this.send(tick, c);
        return;
      }
      case "finish":
        return this.finish(op);
      case "replay": {
        const withCalls = this.ticks.filter((t) => t.calls.length > 0);
        if (withCalls.length === 0) return;
        const tick = withCalls[op.tick % withCalls.length]!;
        const older = tick.calls.length > 1 && op.older !== null;
        const c = older ? tick.calls[op.older! % (tick.calls.length - 1)]! : tick.calls[tick.calls.length - 1]!;
        return void (await this.send(tick, c)); // a late duplicate: the tick never sees its reply
      }
      case "kill": {
        const tick = this.pick(op.tick, ["running", "failing"]);
        if (tick) tick.status = "killed";
        return;
      }
      case "expireLease": {
        const leased = this.ticks.filter((t) => this.model.leases.has(t.id));
        if (leased.length === 0) return;
        const tick = leased[op.tick % leased.length]!;
        const key = `${this.prefix}tick:${tick.id}`;
        if (op.pexpire) {
          await this.redis.pexpire(key, 1);
          await sleep(3);
        } else await this.redis.del(key);
        this.model.leases.delete(tick.id);
        // The lock has the lease's TTL and was taken no later than the
        // lease's last extension: it is gone by now too.
        if (this.model.lock === tick.id) {
          await this.redis.del(`${this.prefix}resurrector`);
          this.model.lock = null;
        }
        return;
      }
      case "expireLock":
        await this.redis.del(`${this.prefix}resurrector`);
        this.model.lock = null;
        return;
      case "makeDue": {
        const set = op.retry ? "retry" : "schedule";
        const waiting = [...this.model.jobs.values()].filter((j) => j.loc.k === set && j.score !== 0);
        if (waiting.length === 0) return;
        const job = waiting[op.pick % waiting.length]!;
        await this.redis.zadd(`${this.prefix}${set}`, "XX", 0, job.raw!);
        job.score = 0;
        return;
      }
    }
  }

  // ── enqueue ──────────────────────────────────────────────────────────

  private newEntry(queue: string, when: When, own: boolean): EnqueueEntry {
    const jid = `${this.tag}-${++this.jidSeq}`;
    const json = encodeNewJob({ class: "Job", args: [this.jidSeq], jid, queue, retry: true });
    const at = when === "atPast" ? 1 : when === "atFuture" ? Date.now() + FUTURE_MS : 0;
    return { jid, queue, delay: when === "delay" ? FUTURE_MS : 0, at, own, json };
  }

  private async runEnqueue(args: (string | number)[]): Promise<RedisReply> {
    const keys = [`${this.prefix}queues`, `${this.prefix}schedule`];
    return runScript(this.adapter, protocol.enqueue.script, keys, [this.prefix, ...args], { count: 0 }, 10_000);
  }

  private async enqueue(entries: EnqueueEntry[]): Promise<void> {
    const token = `${this.tag}-e${this.enqueues.length + 1}`;
    const args = encode(protocol.enqueue, ENQUEUE_KEYS, {
      token,
      tokenMs: REPLAY_WINDOW_MS,
      idWindowMs: ID_WINDOW_MS,
      jobs: entries.map((e) => ({
        queue: e.queue,
        delayMs: e.delay,
        atMs: e.at,
        jid: e.own ? e.jid : "",
        job: e.json,
      })),
    }).args;
    const reply = await this.runEnqueue(args);
    this.enqueues.push({ args, reply });
    let flags = "";
    for (const e of entries) {
      const fresh = !e.own || !this.remembered.has(e.jid);
      flags += fresh ? "1" : "0";
      if (!fresh) continue;
      if (e.own) {
        this.remembered.add(e.jid);
        this.ownEntries.push(e);
      }
      const later = e.delay > 0 || e.at > Date.now();
      this.model.jobs.set(e.jid, {
        jid: e.jid,
        queue: e.queue,
        sent: e.json,
        raw: null,
        loc: later ? { k: "schedule" } : { k: "queue", q: e.queue },
        score: later ? Infinity : NaN,
      });
    }
    this.want(`enqueue ${token} flags`, reply, flags);
  }

  // ── the tick's calls ─────────────────────────────────────────────────

  private pick(n: number, statuses: Tick["status"][]): Tick | undefined {
    const ticks = this.ticks.filter((t) => statuses.includes(t.status));
    return ticks.length === 0 ? undefined : ticks[n % ticks.length];
  }

  private housekeeping(): ReturnType<typeof housekeepArgs> {
    return housekeepArgs({
      resurrectLimit: this.cfg.resurrectLimit,
      scheduleLimit: this.cfg.scheduleLimit,
      lockMs: LOCK_MS,
    });
  }

  private common(tick: Tick): { tickId: string; leaseMs: number; deadMaxSize: number; deadMaxAgeSec: number } {
    return { tickId: tick.id, leaseMs: LEASE_MS, deadMaxSize: this.cfg.deadMax, deadMaxAgeSec: DEAD_MAX_AGE_S };
  }

  private keys(tick: Tick): { ticks: string; lease: string } {
    return { ticks: "ticks", lease: `tick:${tick.id}` };
  }

  /** Outcomes for some of the jobs the tick holds, one per job. */
  private outcomes(tick: Tick, picks: AckPick[]): Outcome[] {
    const held = [...tick.held.values()];
    const chosen = new Map<string, Outcome>();
    for (const p of picks) {
      if (held.length === 0) break;
      const job = held[p.pick % held.length]!;
      if (!chosen.has(job.raw)) chosen.set(job.raw, outcomeFor(job, p.outcome));
    }
    return [...chosen.values()];
  }

  private async begin(op: Extract<Op, { t: "begin" }>): Promise<void> {
    if (this.ticks.filter((t) => t.status === "running" || t.status === "failing").length >= MAX_LIVE_TICKS) return;
    const tick: Tick = {
      id: `t${this.ticks.length + 1}`,
      status: "running",
      held: new Map(),
      carried: [],
      calls: [],
      seq: 1,
    };
    this.ticks.push(tick);
    this.model.ticks.push(tick.id);
    const registration = `${Date.now()} ${LEASE_MS} ${QUEUES.join(" ")}`;
    // no schedules declared: empty digest, due limit, no clock shift
    const args = encode(protocol.begin, this.keys(tick), {
      ...this.common(tick),
      registration,
      housekeep: this.housekeeping(),
      askPolicy: false,
      recurring: { digest: "", dueLimit: 100, shiftMs: 0 },
      workflows: { claim: -1, retentionMs: 0 }, // no workflow declared
      starts: [],
      fetch: fetchArgs(PLAN, op.batch),
    }).args;
    const c: Call = { kind: "begin", seq: 1, args, outcomes: [], batch: op.batch };
    tick.calls.push(c);
    let reply = await this.send(tick, c);
    if (op.dup) reply = await this.send(tick, c);
    if (op.lose)
      tick.status = "killed"; // runTick throws: nobody drives this tick again
    else if (asNumber(reply[6]) !== 1) tick.status = "done";
    else for (const f of fetchedJobs(reply[5])) tick.held.set(f.raw, f);
  }

  private async step(op: Extract<Op, { t: "step" }>): Promise<void> {
    const tick = this.pick(op.tick, ["running"]);
    if (!tick) return;
    const outcomes = this.outcomes(tick, op.acks);
    const seq = ++tick.seq;
    const args = encode(protocol.step, this.keys(tick), {
      ...this.common(tick),
      call: String(seq),
      acks: ackArgs(outcomes),
      fetch: fetchArgs(PLAN, op.fetch),
    }).args;
    const c: Call = { kind: "step", seq, args, outcomes, batch: op.fetch };
    tick.calls.push(c);
    let reply = await this.send(tick, c);
    if (op.dup) reply = await this.send(tick, c);
    for (const o of outcomes) tick.held.delete(o.job.raw);
    if (op.lose) {
      // The call ran, its reply never came and the tick gave up on it: as
      // pipeline.ts does, its acks go back to `finished` and ride on finish.
      tick.carried.push(...outcomes);
      tick.status = "failing";
      return;
    }
    for (const f of fetchedJobs(reply[3])) tick.held.set(f.raw, f);
  }

  private async finish(op: Extract<Op, { t: "finish" }>): Promise<void> {
    const tick = this.pick(op.tick, ["running", "failing"]);
    if (!tick) return;
    const picked = this.outcomes(tick, op.acks);
    const named = new Set(picked.map((o) => o.job.raw));
    const unstarted = op.leave
      ? []
      : [...tick.held.values()].filter((f) => !named.has(f.raw)).map((job): Outcome => ({ kind: "unstarted", job }));
    const outcomes = [...tick.carried, ...picked, ...unstarted];
    const seq = ++tick.seq;
    const args = encode(protocol.finish, this.keys(tick), {
      ...this.common(tick),
      call: String(seq),
      workflows: [], // no workflow declared
      acks: ackArgs(outcomes),
      queues: [...QUEUES],
      unstartable: { budgetMs: 10_000, windowMs: 300_000, entries: [] },
      recent: "",
    }).args;
    const c: Call = { kind: "finish", seq, args, outcomes, batch: 0 };
    tick.calls.push(c);
    await this.send(tick, c);
    if (op.dup) await this.send(tick, c);
    tick.status = "done";
  }

  private async send(tick: Tick, c: Call): Promise<RedisReply[]> {
    const keys = [`${this.prefix}ticks`, `${this.prefix}tick:${tick.id}`];
    const reply = await runScript(
      this.adapter,
      protocol[c.kind].script,
      keys,
      [this.prefix, ...c.args],
      { count: 0 },
      10_000,
    );
    this.apply(tick, c, reply);
    return asArray(reply, c.kind);
  }

  // ── the model's side of each call (the scripts' contract) ────────────

  private apply(tick: Tick, c: Call, reply: RedisReply): void {
    const m = this.model;
    const r = asArray(reply, c.kind);
    const lease = m.leases.get(tick.id);
    const state = !lease ? "lost" : c.seq === lease.seq ? "replay" : c.seq < lease.seq ? "stale" : "fresh";
    const ctx = `${c.kind} #${c.seq} of ${tick.id} (${state})`;
    tally(`${c.kind}:${state}`);
    const now = asNumber(r[0]);
    const remember = () => m.leases.set(tick.id, { seq: c.seq, kept: reply });
    if (state === "replay") return this.want(`${ctx}: the replay's reply`, reply, lease!.kept);

    switch (c.kind) {
      case "begin":
        // Call 1 starts a tick once. Sent again, it answers the kept reply
        // while the lease lives, and "lease not held" once it is gone: a
        // tick that lost its lease is dead for good, or it would fetch and
        // ack again, unfenced (DESIGN.md, "Replays, leases and fencing").
        if (m.begun.has(tick.id))
          return this.want(`${ctx}: a begun tick whose lease is gone must not start again; reply`, r.slice(1, 7), [
            0,
            0,
            0,
            0,
            [],
            0,
          ]);
        m.begun.add(tick.id);
        this.want(`${ctx}: lease held`, r[6], 1);
        m.registered.add(tick.id);
        remember();
        this.housekeep(tick.id, ctx, r, now);
        this.fetch(tick.id, ctx, c.batch, r[5]);
        return;
      case "housekeep":
        if (state !== "fresh") return this.want(`${ctx}: reply`, r.slice(1), [0, 0, 0, 0, 0]);
        this.housekeep(tick.id, ctx, r, now);
        this.want(`${ctx}: lease held`, r[5], 1);
        remember();
        return;
      case "step": {
        if (state === "stale") return this.want(`${ctx}: reply`, r.slice(1), [0, 0, []]);
        const { evicted, missed } = this.ack(tick.id, c.outcomes, now);
        this.want(`${ctx}: dead evictions`, r[2], evicted);
        this.want(`${ctx}: ack entries no longer listed`, r[5], missed);
        if (state === "lost") return this.want(`${ctx}: lease held, fetched`, [r[1], r[3]], [0, []]);
        this.want(`${ctx}: lease held`, r[1], 1);
        this.fetch(tick.id, ctx, c.batch, r[3]);
        remember();
        return;
      }
      case "finish": {
        if (state === "stale") return this.want(`${ctx}: reply`, r.slice(1), [0, 0]);
        const { evicted, missed } = this.ack(tick.id, c.outcomes, now);
        if (m.lock === tick.id) m.lock = null;
        const left = m.inproc(tick.id).length;
        if (left === 0) m.registered.delete(tick.id);
        // A finish that found no lease says so last (lib/tick/replay-call.lua's "lost"): the tick reports it lost.
        this.want(
          `${ctx}: jobs left, dead evictions, ordered made ready, ack entries no longer listed, parked jobs sent on, lease gone`,
          r.slice(1),
          state === "lost" ? [left, evicted, 0, missed, 0, [], [], [], 1] : [left, evicted, 0, missed, 0],
        );
        if (state === "fresh") remember();
        return;
      }
    }
  }

  /** Acks act only on jobs still in this tick's list (lib/tick/ack-jobs.lua). Returns dead evictions. */
  /** Dead-set evictions, and the numbers (lib/tick/ack-jobs.lua's order, from 1) of the entries that found their job gone. */
  private ack(tickId: string, outcomes: Outcome[], nowMs: number): { evicted: number; missed: number[] } {
    const noEffect = new Set<Outcome>();
    const evicted = this.applyAck(tickId, outcomes, nowMs, noEffect);
    const missed = ackOrder(outcomes).flatMap((o, k) => (noEffect.has(o) ? [k + 1] : []));
    return { evicted, missed };
  }

  private applyAck(tickId: string, outcomes: Outcome[], nowMs: number, noEffect: Set<Outcome>): number {
    const m = this.model;
    const nowSec = nowMs / 1000;
    let died = false;
    for (const o of outcomes) {
      const j = m.job(o.job.raw);
      if (!j || j.raw !== o.job.raw || !sameLoc(j.loc, { k: "inproc", tick: tickId, q: o.job.queue })) {
        tally("ack:no-effect");
        noEffect.add(o);
        continue;
      }
      tally(`ack:${o.kind}`);
      if (o.kind === "unstarted" || o.kind === "interrupted" || o.kind === "inDoubt") {
        j.loc = { k: "queue", q: j.queue };
        if (o.kind === "interrupted") m.bumpCount(interruptionKey(j.raw));
        continue;
      }
      m.counts.delete(j.raw);
      m.counts.delete(interruptionKey(j.raw));
      m.suspects.delete(j.raw!);
      // The model cancels nothing; a cancelled job would leave, uncounted.
      if (o.kind === "cancelled") {
        j.loc = { k: "done" };
        continue;
      }
      m.processed++;
      if (o.kind === "succeeded") {
        j.loc = { k: "done" };
        continue;
      }
      m.failed++;
      if (o.kind === "discarded") {
        j.loc = { k: "done" };
        continue;
      }
      j.raw = o.updated;
      if (o.kind === "retry") {
        j.loc = { k: "retry" };
        j.score = nowSec + o.delaySec;
      } else {
        j.loc = { k: "dead" };
        j.score = nowSec;
        died = true;
      }
    }
    if (!died) return 0;
    const dead = [...m.jobs.values()]
      .filter((j) => j.loc.k === "dead")
      .sort((a, b) => a.score - b.score || (a.raw! < b.raw! ? -1 : 1));
    const evicted = Math.max(0, dead.length - this.cfg.deadMax);
    tally("dead-evicted", evicted);
    for (const j of dead.slice(0, evicted)) j.loc = { k: "evicted" };
    m.deadEvicted += evicted;
    return evicted;
  }

  /** Resurrect, then schedule (begin and housekeep). */
  private housekeep(tickId: string, ctx: string, r: RedisReply[], nowMs: number): void {
    this.resurrect(tickId, ctx, asNumber(r[1]));
    const { moved, more } = this.schedule(nowMs / 1000);
    this.want(`${ctx}: scheduled, more resurrect, more schedule`, r.slice(2, 5), [moved, 0, more]);
  }

  private resurrect(tickId: string, ctx: string, reported: number): void {
    const m = this.model;
    if (m.lock !== null && m.lock !== tickId) return this.want(`${ctx}: resurrected without the lock`, reported, 0);
    m.lock = tickId;
    const dead = [...m.registered].filter((u) => !m.leases.has(u));
    const jobs = dead.flatMap((u) => m.inproc(u));
    if (jobs.length >= this.cfg.resurrectLimit) {
      // Which jobs the bounded pass reaches depends on HSCAN's order: learnt from Redis.
      tally("resurrect:bounded");
      this.pending = { ctx, reported, moved: 0, jobs: new Set(jobs.map((j) => j.jid)), ticks: dead };
      return;
    }
    tally("resurrect:jobs", jobs.length);
    for (const j of jobs) {
      j.loc = { k: "queue", q: j.queue };
      m.suspects.add(j.raw!);
    }
    for (const u of dead) m.registered.delete(u);
    this.want(`${ctx}: resurrected`, reported, jobs.length);
  }

  private schedule(nowSec: number): { moved: number; more: number } {
    const all = [...this.model.jobs.values()];
    const due = (set: "schedule" | "retry") =>
      all
        .filter((j) => j.loc.k === set && j.score <= nowSec)
        .sort((a, b) => a.score - b.score || (a.raw! < b.raw! ? -1 : 1));
    let left = this.cfg.scheduleLimit;
    for (const set of ["schedule", "retry"] as const) {
      for (const j of due(set).slice(0, Math.max(0, left))) {
        j.loc = { k: "queue", q: j.queue };
        j.raw = withEnqueuedAt(j.raw!, nowSec);
        left--;
      }
    }
    const moved = this.cfg.scheduleLimit - left;
    const more = left === 0 && due("schedule").length + due("retry").length > 0 ? 1 : 0;
    return { moved, more };
  }

  private fetch(tickId: string, ctx: string, batch: number, groups: RedisReply | undefined): void {
    const m = this.model;
    const got = new Map<string, number>();
    for (const f of fetchedJobs(groups)) {
      got.set(f.queue, (got.get(f.queue) ?? 0) + 1);
      const j = m.job(f.raw);
      if (!j) {
        this.problem(`${ctx}: fetched a job never enqueued: ${f.raw}`);
        continue;
      }
      const pending = this.pending?.jobs.has(j.jid) === true && j.queue === f.queue;
      if (!pending && !sameLoc(j.loc, { k: "queue", q: f.queue }))
        this.problem(`${ctx}: fetched ${j.jid} from queue ${f.queue}, model has it in ${showLoc(j.loc)}`);
      if (j.raw !== f.raw) this.problem(`${ctx}: fetched ${j.jid} as ${f.raw}, model ${j.raw}`);
      if (pending) {
        this.pending!.jobs.delete(j.jid);
        this.pending!.moved++;
        m.suspects.add(f.raw);
      }
      this.want(`${ctx}: resurrection count of ${j.jid}`, f.resurrections, m.counts.get(f.raw) ?? 0);
      this.want(`${ctx}: suspect flag of ${j.jid}`, f.suspect ? 1 : 0, m.suspects.has(f.raw) ? 1 : 0);
      this.want(`${ctx}: interruption count of ${j.jid}`, f.interruptions, m.counts.get(interruptionKey(f.raw)) ?? 0);
      j.loc = { k: "inproc", tick: tickId, q: f.queue };
    }
    // Strict order: as many as the batch allows from a, the rest from b.
    this.deferred.push(() => {
      let slots = batch;
      for (const q of QUEUES) {
        const n = got.get(q) ?? 0;
        const waiting = [...m.jobs.values()].filter((j) => sameLoc(j.loc, { k: "queue", q })).length;
        if (n !== Math.min(slots, n + waiting))
          this.problem(`${ctx}: fetched ${n} from queue ${q} with ${slots} slots free and ${n + waiting} jobs there`);
        slots -= n;
      }
    });
  }

  /** Reads Redis, settles what the model left open, and returns every difference. */
  async check(): Promise<string[]> {
    const snap = await snapshot(this.redis, this.prefix, this.model.ticks);
    this.problems.push(...learnRaws(this.model, snap));
    if (this.pending) this.settle(this.pending, snap);
    this.pending = null;
    for (const d of this.deferred) d();
    this.deferred = [];
    const problems = [...this.problems, ...compare(this.model, snap, Date.now() / 1000)];
    this.problems = [];
    return problems;
  }

  private settle(p: Pending, snap: Snapshot): void {
    const m = this.model;
    for (const jid of p.jobs) {
      const j = m.jobs.get(jid)!;
      const at = snap.places.get(jid);
      if (at?.length !== 1) continue; // compare() reports it
      const loc = at[0]!.loc;
      if (sameLoc(loc, { k: "queue", q: j.queue })) {
        j.loc = loc;
        m.suspects.add(j.raw!);
        p.moved++;
      } else if (!sameLoc(loc, j.loc)) this.problem(`${p.ctx}: job ${jid} of a dead tick went to ${showLoc(loc)}`);
    }
    this.want(`${p.ctx}: resurrected (bounded pass)`, p.reported, p.moved);
    for (const u of p.ticks) if (!snap.registered.has(u)) m.registered.delete(u);
  }

  /** After a run: no list or sorted set outside the layout (a job could hide there), and the daily counters add up. */
  async checkKeys(): Promise<string[]> {
    const problems: string[] = [];
    // jids: the jids remembered for idempotent enqueue, scored by when each may be forgotten (no job text).
    const layout = /^(queue:[ab]|schedule|retry|dead|begun:\d+|jids|inproc:t\d+:[ab])$/;
    const daily = { processed: 0, failed: 0 };
    let cursor = "0";
    do {
      const [next, keys] = await this.redis.scan(cursor, "MATCH", `${this.prefix}*`, "COUNT", 1000);
      cursor = next;
      for (const key of keys) {
        const name = key.slice(this.prefix.length);
        if (!layout.test(name)) {
          const type = await this.redis.type(key);
          if (type === "list" || type === "zset") problems.push(`a ${type} outside the layout: ${name}`);
        }
        const m = /^stat:(processed|failed):\d/.exec(name);
        if (m) daily[m[1] as "processed" | "failed"] += Number(await this.redis.get(key));
      }
    } while (cursor !== "0");
    this.want("daily processed", daily.processed, this.model.processed);
    this.want("daily failed", daily.failed, this.model.failed);
    return [...problems, ...this.problems];
  }
}

/**
 * Runs one sequence on a fresh prefix, checking after every operation; throws what differed. `prefixOf` makes
 * the prefix (over a cluster, one whose hash tag puts its keys on the master `redis` speaks to).
 */
export async function runOps(
  adapter: RedisAdapter,
  redis: Redis,
  label: string,
  cfg: Config,
  ops: Op[],
  prefixOf: (label: string) => string = uniquePrefix,
): Promise<void> {
  const prefix = prefixOf(`${label}:prop`);
  const world = new World(adapter, redis, prefix, cfg, prefix.split(":").at(-2)!);
  try {
    for (const [i, op] of ops.entries()) {
      await world.run(op);
      const problems = await world.check();
      if (problems.length > 0) throw new Error(`after op ${i} ${show(op)}:\n  ${problems.join("\n  ")}`);
    }
    const problems = await world.checkKeys();
    if (problems.length > 0) throw new Error(`at the end:\n  ${problems.join("\n  ")}`);
  } finally {
    await deleteUnder(redis, prefix);
  }
}
