// The flow scripts against a model (lib/flow/admit.lua's fast path, which
// takes a chunk of distinct free keys of one shape with one MSETNX, and the
// ack's batched settle among them).
// A randomised walk over the scripts themselves (begin, step, as a tick
// calls them, numbered, some calls replayed): jobs of several names and
// shapes sharing keys (shape one of two names and two queues, a unique key
// with a concurrency limit, until-executed, coalesce, a concurrency limit,
// plain), enqueued normally or straight into the queue (duplicates the
// fetch must sort), fetched in batches of 1..100, acked with every outcome,
// ticks killed (lease deleted) and acking late, resurrected. After every
// call the state in Redis is checked against itself:
// - flow:locks NAME = the slots the jobs in inproc lists hold, by name
// - flow:waiting NAME = the jobs parked, by name
// - every flow:owner:KEY / flow:held:KEY holder has that job in its inproc
//   list (no lock stranded); every live tick's job holds its slots
// - no key has more live holders than its limit (no overlap)
// - no job is lost or doubled: each is in one place, or succeeded once
// At the end everything is drained and every flow key but the counters is
// gone, stats().flow are all 0, and a new job of every key runs at once.
// Walks start with up to 30 jobs and take up to 40 operations (the arrays
// are drawn at `size: "max"`: fast-check's default size would stop near a
// third of that). FLOW_MODEL_RUNS=n runs more walks (20 in npm test).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ackOrder, type Outcome } from "../../../src/tick/passes/ack.js";
import type { FetchedJob } from "../../../src/tick/passes/fetch.js";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness, type Harness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginNamed } from "../../helpers/begin-args.js";
import { acksOf, jobsOf, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 60_000;
const QUEUES = ["default", "q2"];
/** A step of `tick` (call `seq`) acking `outcomes`, then fetching `batch` from QUEUES. */
const stepCall = (tick: string, seq: number, outcomes: Outcome[], batch: number) =>
  stepArgs({ tick, leaseMs: LEASE, deadMaxSize: 1_000, call: seq, acks: acksOf(outcomes), batch, queues: QUEUES });
const beginArgs = (tick: string, batch: number) =>
  beginNamed({
    tick,
    leaseMs: LEASE,
    deadMaxSize: 1_000,
    queues: [...QUEUES],
    batch,
    resurrectLimit: 1_000,
    scanLimit: 1_000,
    scheduleLimit: 1_000,
  });

const KEYS = ["a", "b", "c", "d", 'x y|z%"q', "L".repeat(300)];
const key0 = (args: unknown[]) => String(args[0]);
type A = [string, number];
const jobs = {
  one: { perform: () => {}, uniqueKey: key0 },
  two: { perform: () => {}, uniqueKey: key0 },
  both: { perform: () => {}, uniqueKey: key0, concurrency: { key: () => "all", limit: 2 } },
  lim: { perform: () => {}, concurrency: { key: key0, limit: 2 } },
  plain: { perform: () => {} },
};
type Name = keyof typeof jobs;
type Mode = "while-executing" | "until-executed" | "coalesce" | undefined;

interface Spec {
  name: Name;
  key: number;
  mode: Mode;
  queue: string;
}
const specArb: fc.Arbitrary<Spec> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      name: fc.constantFrom<Name>("one", "two"),
      key: fc.nat(5),
      mode: fc.constant<Mode>("while-executing"),
      queue: fc.constantFrom(...QUEUES),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      name: fc.constantFrom<Name>("one", "two"),
      key: fc.nat(5),
      mode: fc.constantFrom<Mode>("until-executed", "coalesce"),
      queue: fc.constant("default"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      name: fc.constant<Name>("both"),
      key: fc.nat(5),
      mode: fc.constant<Mode>("while-executing"),
      queue: fc.constant("default"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      name: fc.constant<Name>("lim"),
      key: fc.nat(5),
      mode: fc.constant<Mode>(undefined),
      queue: fc.constantFrom(...QUEUES),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      name: fc.constant<Name>("plain"),
      key: fc.nat(5),
      mode: fc.constant<Mode>(undefined),
      queue: fc.constantFrom(...QUEUES),
    }),
  },
);
type Kind = "ok" | "retry" | "dead" | "discard" | "unstarted" | "interrupted";
const kindArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Kind>("ok") },
  fc.constantFrom<Kind>("retry", "dead", "discard", "unstarted", "interrupted"),
);
type Op =
  | { t: "begin"; batch: number }
  | { t: "step"; tick: number; acks: { pick: number; kind: Kind }[]; batch: number; replay: boolean }
  | { t: "kill"; tick: number }
  | { t: "resurrect"; batch: number }
  | { t: "enqueue"; specs: Spec[]; queued: boolean };
const batchArb = fc.constantFrom(1, 2, 3, 5, 100);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ t: fc.constant("begin" as const), batch: batchArb }) },
  {
    weight: 6,
    arbitrary: fc.record({
      t: fc.constant("step" as const),
      tick: fc.nat(),
      acks: fc.array(fc.record({ pick: fc.nat(), kind: kindArb }), { maxLength: 8 }),
      batch: fc.constantFrom(0, 1, 2, 3, 5, 100),
      replay: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("kill" as const), tick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("resurrect" as const), batch: batchArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("enqueue" as const),
      specs: fc.array(specArb, { minLength: 1, maxLength: 6 }),
      queued: fc.boolean(),
    }),
  },
);

const MAX_JOBS = 30;
const MAX_OPS = 40;
const initialArb = fc.array(specArb, { minLength: 1, maxLength: MAX_JOBS, size: "max" });
const opsArb = fc.array(opArb, { minLength: 1, maxLength: MAX_OPS, size: "max" });

/** A flow job's name and slots ([key, limit]), read from its descriptor as lib/flow/read.lua does; null for a plain job. */
function slotsOf(raw: string): { name: string; jid: string; slots: [string, number][] } | null {
  const m = /^\{"tickq_flow":"([^"]*)"/.exec(raw);
  const jid = (JSON.parse(raw) as { jid: string }).jid;
  if (!m) return null;
  const [shape, keys, descriptorJid] = m[1]!.split("|") as [string, string, string];
  const words = shape.split(" ");
  const keyWords = keys.split(" "); // as Redis names them: escaped
  const slots: [string, number][] = [];
  let k = 0;
  for (let i = 2; i < words.length; ) {
    const tag = words[i]!;
    if (tag === "u") slots.push([keyWords[k]!, 1]), (i += 1);
    else if (tag === "l") slots.push([keyWords[k]!, Number(words[i + 1])]), (i += 2);
    else if (tag === "r") i += 3;
    else i += 1;
    k++;
  }
  return { name: decodeURIComponent(words[0]!), jid: descriptorJid || jid, slots };
}
const jidOf = (raw: string) => (JSON.parse(raw) as { jid: string }).jid;

interface Tick {
  id: string;
  seq: number;
  alive: boolean;
  held: FetchedJob[];
}

async function listsUnder(h: Harness, pattern: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const key of await h.redis.keys(`${h.prefix}${pattern}`))
    out.set(key.slice(h.prefix.length), await h.redis.lrange(key, 0, -1));
  return out;
}

/** Every invariant the state must hold after any call; `expected`: the jids enqueued, `done`: those finished (succeeded once, dead, discarded). */
async function check(h: Harness, expected: Set<string>, done: Map<string, string>, where: string): Promise<void> {
  const r = h.redis;
  const inproc = await listsUnder(h, "inproc:*");
  const parks = await listsUnder(h, "flow:park:*");
  const queues = await listsUnder(h, "queue:*");
  const zsets: string[] = [];
  for (const z of ["retry", "schedule", "dead"]) zsets.push(...(await r.zrange(`${h.prefix}${z}`, "0", "-1")));
  const liveTick = new Map<string, boolean>();
  const alive = async (tick: string) => {
    if (!liveTick.has(tick)) liveTick.set(tick, (await r.exists(`${h.prefix}tick:${tick}`)) === 1);
    return liveTick.get(tick)!;
  };
  // where every job is
  const seen = new Map<string, string>();
  const place = (jid: string, at: string) => {
    expect(seen.get(jid), `${where}: ${jid} in ${at} and ${seen.get(jid)}`).toBeUndefined();
    expect(
      done.has(jid) && done.get(jid) !== "dead" ? jid : undefined,
      `${where}: ${jid} finished (${done.get(jid)}) yet in ${at}`,
    ).toBeUndefined();
    seen.set(jid, at);
  };
  const locks = new Map<string, number>();
  const holders = new Map<string, { tick: string; jid: string }[]>();
  for (const [list, items] of inproc) {
    const tick = list.split(":")[1]!;
    for (const raw of items) {
      place(jidOf(raw), list);
      const s = slotsOf(raw);
      if (!s) continue;
      locks.set(s.name, (locks.get(s.name) ?? 0) + s.slots.length);
      for (const [key] of s.slots) holders.set(key, [...(holders.get(key) ?? []), { tick, jid: s.jid }]);
    }
  }
  const waiting = new Map<string, number>();
  for (const [list, items] of parks) {
    for (const raw of items) {
      place(jidOf(raw), list);
      const s = slotsOf(raw);
      if (s) waiting.set(s.name, (waiting.get(s.name) ?? 0) + 1);
    }
  }
  for (const [list, items] of queues) for (const raw of items) place(jidOf(raw), list);
  for (const raw of zsets) {
    const jid = jidOf(raw);
    if (done.get(jid) === "dead") continue;
    place(jid, "a zset");
  }
  for (const jid of expected) if (!done.has(jid)) expect(seen.has(jid), `${where}: ${jid} lost`).toBe(true);
  // counters
  const locksHash = await r.hgetall(`${h.prefix}flow:locks`);
  const waitingHash = await r.hgetall(`${h.prefix}flow:waiting`);
  for (const name of Object.keys(jobs)) {
    expect(Number(locksHash[name] ?? 0), `${where}: flow:locks ${name}`).toBe(locks.get(name) ?? 0);
    expect(Number(waitingHash[name] ?? 0), `${where}: flow:waiting ${name}`).toBe(waiting.get(name) ?? 0);
  }
  // no stranded lock: every holder has its job listed
  for (const full of await r.keys(`${h.prefix}flow:owner:*`)) {
    const key = full.slice(`${h.prefix}flow:owner:`.length);
    const owner = (await r.get(full))!;
    expect(
      (holders.get(key) ?? []).some((x) => x.tick === owner),
      `${where}: flow:owner:${key} = ${owner}, which lists no job of it`,
    ).toBe(true);
  }
  for (const full of await r.keys(`${h.prefix}flow:held:*`)) {
    const key = full.slice(`${h.prefix}flow:held:`.length);
    for (const field of await r.hkeys(full)) {
      const [tick, jid] = field.split(" ");
      expect(
        (holders.get(key) ?? []).some((x) => x.tick === tick && x.jid === jid),
        `${where}: flow:held:${key} holds ${field}, which lists no such job`,
      ).toBe(true);
    }
  }
  // no overlap among live ticks; a live tick's job holds its slot
  for (const [list, items] of inproc) {
    const tick = list.split(":")[1]!;
    if (!(await alive(tick))) continue;
    for (const raw of items) {
      const s = slotsOf(raw);
      for (const [key, limit] of s?.slots ?? []) {
        const live = [];
        for (const x of holders.get(key) ?? []) if (await alive(x.tick)) live.push(x);
        expect(live.length, `${where}: ${key} run by ${JSON.stringify(live)} (limit ${limit})`).toBeLessThanOrEqual(
          limit,
        );
        if (limit === 1) expect(await r.get(`${h.prefix}flow:owner:${key}`), `${where}: ${key}'s owner`).toBe(tick);
        else
          expect(
            await r.hexists(`${h.prefix}flow:held:${key}`, `${tick} ${s!.jid}`),
            `${where}: ${key} held by ${tick}`,
          ).toBe(1);
      }
    }
  }
}

describe("the flow model's walks", () => {
  it(`start with up to ${MAX_JOBS} jobs and take up to ${MAX_OPS} operations`, () => {
    const longest = (arb: fc.Arbitrary<unknown[]>) =>
      Math.max(...fc.sample(arb, { numRuns: 300, seed: 1 }).map((a) => a.length));
    expect({ jobs: longest(initialArb), ops: longest(opsArb) }).toEqual({ jobs: MAX_JOBS, ops: MAX_OPS });
  });
});

describe.each(adapterCases.slice(0, 1))("the flow scripts against a model, random walks over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-model");
  const { call } = scriptCalls(h);

  async function walk(initial: Spec[], queuedInitial: boolean, ops: Op[]): Promise<void> {
    const tq = h.make(jobs);
    const expected = new Set<string>();
    const done = new Map<string, string>();
    const ticks: Tick[] = [];
    let nextTick = 0;
    const fences = new Set<number>();

    const enqueue = async (specs: Spec[], queued: boolean) => {
      const bulk = specs.map((s) => ({
        name: s.name,
        args: [KEYS[s.key]!, expected.size] as A,
        unique: s.mode,
        queue: s.queue,
      }));
      if (!queued) {
        for (const jid of await tq.enqueueBulk(bulk as never)) expected.add(jid);
        return;
      }
      // straight into the queue, as jobs due from the schedule or queued by an older tickq come
      for (const job of bulk) {
        for (const jid of await tq.enqueueBulk([job] as never)) expected.add(jid);
        for (const park of await h.redis.keys(`${h.prefix}flow:park:*`)) {
          for (let raw = await h.redis.lpop(park); raw; raw = await h.redis.lpop(park)) {
            const { queue } = JSON.parse(raw) as { queue: string };
            await h.redis.lpush(`${h.prefix}queue:${queue}`, raw);
            await h.redis.hincrby(`${h.prefix}flow:waiting`, slotsOf(raw)!.name, -1);
          }
          await h.redis.srem(`${h.prefix}flow:parked`, park.slice(`${h.prefix}flow:park:`.length));
        }
        await h.redis.del(`${h.prefix}flow:sent`);
      }
    };
    const noteFences = (fetched: FetchedJob[], flow: { fence: number } | undefined) => {
      if (!flow) return;
      const first = flow.fence;
      let k = 0;
      for (const job of fetched) {
        if (!job.raw.startsWith('{"tickq_flow"')) continue;
        const fence = first + ++k;
        expect(fences.has(fence), `fence ${fence} handed out twice`).toBe(false);
        fences.add(fence);
      }
    };
    const begin = async (batch: number) => {
      const tick: Tick = { id: `t${nextTick++}`, seq: 1, alive: true, held: [] };
      ticks.push(tick);
      const reply = await call(protocol.begin, tickKeys(tick.id), beginArgs(tick.id, batch));
      tick.held = jobsOf(reply.fetched);
      noteFences(tick.held, reply.flow);
      return tick;
    };
    const outcome = (job: FetchedJob, kind: Kind): Outcome => {
      if (kind === "ok") return { kind: "succeeded", job };
      if (kind === "retry") return { kind: "retry", job, updated: job.raw, delaySec: 0 };
      if (kind === "dead") return { kind: "dead", job, updated: job.raw, handlerFailed: true };
      if (kind === "discard") return { kind: "discarded", job };
      return { kind, job };
    };
    const step = async (tick: Tick, picks: { pick: number; kind: Kind }[], batch: number, replay: boolean) => {
      const chosen = new Map<number, Kind>();
      for (const p of picks) if (tick.held.length > 0) chosen.set(p.pick % tick.held.length, p.kind);
      const outcomes = [...chosen].map(([i, kind]) => outcome(tick.held[i]!, kind));
      tick.held = tick.held.filter((_, i) => !chosen.has(i));
      tick.seq++;
      const args = stepCall(tick.id, tick.seq, outcomes, batch);
      const reply = await call(protocol.step, tickKeys(tick.id), args);
      if (replay) {
        const again = await call(protocol.step, tickKeys(tick.id), args);
        if (tick.alive) expect(again).toEqual(reply);
      }
      const missed = new Set(reply.missed ?? []);
      ackOrder(outcomes).forEach((o, i) => {
        if (missed.has(i + 1)) return;
        const jid = jidOf(o.job.raw);
        if (o.kind === "succeeded" || o.kind === "dead" || o.kind === "discarded") {
          expect(done.has(jid), `${jid} finished twice`).toBe(false);
          done.set(jid, o.kind);
        }
      });
      if (reply.leaseHeld) {
        const fetched = jobsOf(reply.fetched);
        tick.held.push(...fetched);
        noteFences(fetched, reply.flow);
      }
    };
    const resurrectAll = async (batch: number) => {
      await h.redis.del(`${h.prefix}resurrector`);
      return begin(batch);
    };

    await enqueue(initial, queuedInitial);
    await check(h, expected, done, "enqueued");
    for (const [n, op] of ops.entries()) {
      const where = `op ${n} ${JSON.stringify(op)}`;
      if (op.t === "begin") await begin(op.batch);
      else if (op.t === "enqueue") await enqueue(op.specs, op.queued);
      else if (op.t === "resurrect") await resurrectAll(op.batch);
      else if (ticks.length > 0) {
        // a step mostly of a tick that holds jobs
        const holding = ticks.filter((t) => t.held.length > 0);
        const pool = op.t === "step" && holding.length > 0 && op.tick % 4 !== 0 ? holding : ticks;
        const tick = pool[op.tick % pool.length]!;
        if (op.t === "kill") {
          await h.redis.del(`${h.prefix}tick:${tick.id}`);
          tick.alive = false;
        } else await step(tick, op.acks, op.batch, op.replay);
      }
      await check(h, expected, done, where);
    }

    // Drain: every live tick acks what it holds, the dead are resurrected, then all runs.
    for (const tick of ticks)
      if (tick.alive)
        await step(
          tick,
          tick.held.map((_, pick) => ({ pick, kind: "ok" as Kind })),
          0,
          false,
        );
    for (let round = 0; round < 60; round++) {
      const tick = await resurrectAll(50);
      for (let i = 0; i < 60 && tick.held.length > 0; i++)
        await step(
          tick,
          tick.held.map((_, pick) => ({ pick, kind: "ok" as Kind })),
          50,
          false,
        );
      await check(h, expected, done, `drain ${round}`);
      const left =
        (await h.redis.keys(`${h.prefix}queue:*`)).length +
        (await h.redis.keys(`${h.prefix}flow:park:*`)).length +
        (await h.redis.zcard(`${h.prefix}retry`)) +
        (await h.redis.keys(`${h.prefix}inproc:*`)).length;
      if (left === 0) break;
    }
    for (const jid of expected) expect(done.has(jid), `${jid} never finished`).toBe(true);
    const flowKeys = (await h.redis.keys(`${h.prefix}flow:*`)).map((k) => k.slice(h.prefix.length)).sort();
    expect(flowKeys.filter((k) => !["flow:fence", "flow:locks", "flow:waiting"].includes(k))).toEqual([]);
    const stats = await tq.stats();
    for (const [name, s] of Object.entries(stats.flow))
      expect(s, `stats ${name}`).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
    // a new job of every key runs at once (nothing stranded that makes it park or wait)
    const fresh = await tq.enqueueBulk(
      KEYS.map((key) => ({ name: "one" as const, args: [key, -1] as A, unique: "while-executing" as const })),
    );
    const last = await begin(100);
    expect(last.held.map((j) => jidOf(j.raw)).sort()).toEqual([...fresh].sort());
    await step(
      last,
      last.held.map((_, pick) => ({ pick, kind: "ok" as Kind })),
      0,
      false,
    );
    expect((await tq.stats()).flow.one).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
  }

  it(
    "no job lost or doubled, no overlap, no stranded lock, counters exact: random walks",
    async () => {
      const base = h.prefix;
      let runs = 0;
      try {
        await fc.assert(
          fc.asyncProperty(initialArb, fc.boolean(), opsArb, async (initial, queued, ops) => {
            h.prefix = `${base}r${runs++}:`; // each run under its own prefix (the harness deletes all under base)
            await walk(initial, queued, ops);
          }),
          { numRuns: Number(process.env.FLOW_MODEL_RUNS ?? 20), endOnFailure: true },
        );
      } finally {
        h.prefix = base;
      }
    },
    Number(process.env.FLOW_MODEL_TIMEOUT ?? 120_000),
  );
});
