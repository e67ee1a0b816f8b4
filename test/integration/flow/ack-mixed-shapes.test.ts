// An ack whose successes interleave flow shapes (shape `one` runs, other
// modes, limits, coalesce, escaped names, plain jobs), with put-backs, retries
// and deaths, lease held or lost, keys retaken: each slot is freed once, every
// name counts to 0, followers are sent on, and a replay changes nothing.
import { describe, expect, it } from "vitest";
import { escapeWord } from "../../../src/job/flow-descriptor.js";
import type { Outcome } from "../../../src/tick/passes/ack.js";
import type { FetchedJob } from "../../../src/tick/passes/fetch.js";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { enqueueQueued } from "../../helpers/flow-queued.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import { beginNamed } from "../../helpers/begin-args.js";
import { acksOf, jobsOf, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 60_000;
/** A step of `tick` (call `seq`) acking `outcomes`, then fetching `batch`. */
const step = (tick: string, seq: number, outcomes: Outcome[], batch: number) =>
  stepArgs({ tick, leaseMs: LEASE, deadMaxSize: 1_000, call: seq, acks: acksOf(outcomes), batch });
const beginArgs = (tick: string, batch: number, resurrect = 0) =>
  beginNamed({ tick, leaseMs: LEASE, deadMaxSize: 1_000, batch, resurrectLimit: resurrect, scheduleLimit: 1_000 });

type A = [string];
const key0 = ([k]: A) => k;
const ODD = "mail job|ü"; // a name the descriptor escapes
const jobs = {
  one: { perform: () => {}, uniqueKey: key0 },
  two: { perform: () => {}, uniqueKey: key0 },
  [ODD]: { perform: () => {}, uniqueKey: key0 },
  both: { perform: () => {}, uniqueKey: key0, concurrency: { key: () => "all", limit: 2 } },
  lim: { perform: () => {}, concurrency: { key: key0, limit: 1 } },
  plain: { perform: () => {} },
};
type Name = keyof typeof jobs;
type Mode = "while-executing" | "until-executed" | "coalesce" | undefined;
const J = (
  name: Name,
  key: string,
  unique: Mode = name === "lim" || name === "plain" ? undefined : "while-executing",
  jid?: string,
) => ({ name, args: [key] as A, unique, jid });
type Spec = ReturnType<typeof J>;
/** (any name of `jobs`: all take A) */
const bulk = (specs: Spec[]) => specs as { name: "one"; args: A; unique: Mode; jid?: string }[];
const fj = (j: Spec) => `f-${j.args[0]}`;
/** Held jobs, one of each kind, interleaved so the runs of one shape break and resume. */
const HELD = [
  J("one", "a"),
  J("one", "b"),
  J("two", "c"),
  J("one", "d"),
  J("both", "e"),
  J("one", "f"),
  J("lim", "g"),
  J(ODD, "h"),
  J(ODD, "i"),
  J("one", "j", "coalesce"),
  J("one", "k", "until-executed"),
  J("plain", "p"),
  J("two", "l"),
  J("one", "m"),
];
/** The keys whose follower parks behind the held job (the until-executed one has no slot, and a duplicate of it is that same job). */
const FOLLOWED = HELD.filter((j) => j.name !== "plain" && j.unique !== "until-executed" && j.unique !== "coalesce");
const ARG = (f: FetchedJob) => `${JSON.parse(f.raw).class}:${JSON.parse(f.raw).args[0]}`;

describe.each(adapterCases.slice(0, 1))("an ack of interleaved shapes over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "adv4-ack-mixed");
  const { call, callTwice } = scriptCalls(h);
  const key = (k: string) => `${h.prefix}${k}`;

  const begin = async (tick: string, batch: number, resurrect = 0) => {
    const { first, after } = await callTwice(protocol.begin, tickKeys(tick), beginArgs(tick, batch, resurrect));
    return { fetched: jobsOf(first.fetched), after };
  };
  const ack = async (tick: string, seq: number, outcomes: Outcome[], fetch = 0) => {
    const { first, after } = await callTwice(protocol.step, tickKeys(tick), step(tick, seq, outcomes, fetch));
    return { reply: first, after };
  };
  /** An ack without the lease, run twice: the second run changes nothing (its reply differs only in the clock and what it missed). */
  const ackLate = async (tick: string, seq: number, outcomes: Outcome[]) => {
    const args = step(tick, seq, outcomes, 10);
    const reply = await call(protocol.step, tickKeys(tick), args);
    const after = await snapshot(h.redis, h.prefix);
    const again = await call(protocol.step, tickKeys(tick), args);
    expect(await snapshot(h.redis, h.prefix)).toEqual(after);
    expect(again.missed).toHaveLength(outcomes.length); // all missed: none listed any more
    return { reply, after };
  };
  const ok = (fetched: FetchedJob[]): Outcome[] => fetched.map((job) => ({ kind: "succeeded", job }));
  const ownersOf = (after: Record<string, unknown>) =>
    Object.keys(after)
      .filter((k) => k.startsWith("flow:owner:") || k.startsWith("flow:held:"))
      .sort();
  const counts = (hash: unknown) =>
    Object.fromEntries(Object.entries((hash ?? {}) as Record<string, string>).filter(([, n]) => n !== "0"));

  const drainedClean = async (tq: ReturnType<typeof h.make<typeof jobs>>) => {
    for (const t of ["t0", "t1", "t2"]) await h.redis.del(key(`tick:${t}`));
    for (let round = 0; round < 20; round++) {
      await h.redis.del(key("resurrector"));
      await tq.tick({ batch: 100, budgetMs: 2_000 });
      const left =
        (await h.redis.keys(key("queue:*"))).length +
        (await h.redis.keys(key("flow:park:*"))).length +
        (await h.redis.keys(key("inproc:*"))).length;
      if (left === 0) break;
    }
    expect(await h.redis.keys(key("queue:*"))).toEqual([]);
    expect(await h.redis.keys(key("inproc:*"))).toEqual([]);
    const flowKeys = (await h.redis.keys(key("flow:*"))).map((k) => k.slice(h.prefix.length));
    expect(flowKeys.filter((k) => !["flow:fence", "flow:locks", "flow:waiting"].includes(k))).toEqual([]);
    expect(counts(await h.redis.hgetall(key("flow:locks")))).toEqual({});
    expect(counts(await h.redis.hgetall(key("flow:waiting")))).toEqual({});
    for (const [name, s] of Object.entries((await tq.stats()).flow))
      expect(s, name).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
  };

  /** t1 holds HELD; a follower of each key of FOLLOWED waits parked behind it. */
  const setUp = async () => {
    const tq = h.make(jobs);
    await tq.enqueueBulk(bulk(HELD));
    const { fetched, after } = await begin("t1", 50);
    expect(fetched.map(ARG)).toEqual(HELD.map((j) => `${j.name}:${j.args[0]}`));
    expect(counts(after["flow:locks"])).toEqual({ one: "6", two: "2", [escapeWord(ODD)]: "2", both: "2", lim: "1" });
    await tq.enqueueBulk(bulk(FOLLOWED.map((j) => ({ ...j, jid: fj(j) }))));
    const parked = await h.redis.keys(key("flow:park:*"));
    expect(parked).toHaveLength(FOLLOWED.length);
    return { tq, fetched };
  };

  it("lease held: one ack of all frees every slot, counts every name to 0, ends the claim, and sends each follower on", async () => {
    const { tq, fetched } = await setUp();
    const { reply, after } = await ack("t1", 2, ok(fetched));
    expect(reply.missed).toEqual([]);
    expect(ownersOf(after)).toEqual([]);
    expect(counts(after["flow:locks"])).toEqual({});
    expect(counts(after["flow:waiting"])).toEqual({});
    expect(after["flow:claim:k"]).toBeUndefined();
    const queued = ((after["queue:default"] ?? []) as string[]).map((j) => JSON.parse(j).jid).sort();
    expect(queued).toEqual(FOLLOWED.map(fj).sort());
    // the followers all start together: no key is held by anyone
    const { fetched: next } = await begin("t2", 50);
    expect(next).toHaveLength(FOLLOWED.length);
    await ack("t2", 2, ok(next));
    await drainedClean(tq);
  });

  it("lease lost, nobody took a key: the late ack frees every slot as the holder's, and counts every name to 0", async () => {
    const { tq, fetched } = await setUp();
    await h.redis.del(key("tick:t1"));
    const { reply, after } = await ackLate("t1", 2, ok(fetched));
    expect(reply.leaseHeld).toBe(false); // lease not held: acked, nothing fetched
    expect(reply.missed).toEqual([]);
    expect(ownersOf(after)).toEqual([]);
    expect(counts(after["flow:locks"])).toEqual({});
    expect(counts(after["flow:waiting"])).toEqual({});
    expect(((after["queue:default"] ?? []) as string[]).length).toBe(FOLLOWED.length);
    await drainedClean(tq);
  });

  it("lease lost, some keys swept and retaken by another tick first: the late ack frees only its own, the counts stay exact, nothing runs twice at once", async () => {
    const tq = h.make(jobs);
    await tq.enqueueBulk(bulk([J("one", "a"), J("one", "b"), J("two", "c"), J("both", "d"), J("one", "e")]));
    const { fetched } = await begin("t1", 50);
    await h.redis.del(key("tick:t1"), key("resurrector")); // t1's lease is gone; not resurrected yet
    // followers of a and c reach the queue by another door; t2's fetch finds the keys full and sweeps them
    await enqueueQueued(h, tq, bulk([J("one", "a", "while-executing", "a2"), J("two", "c", "while-executing", "c2")]));
    const { fetched: taken, after: before } = await begin("t2", 50);
    expect(taken.map((f) => JSON.parse(f.raw).jid)).toEqual(["a2", "c2"]);
    expect(before["flow:owner:u:a"]).toBe("t2");
    expect(counts(before["flow:locks"])).toEqual({ one: "4", two: "2", both: "2" });
    const { after } = await ackLate("t1", 2, ok(fetched));
    expect(ownersOf(after)).toEqual(["flow:owner:u:a", "flow:owner:u:c"]);
    expect([after["flow:owner:u:a"], after["flow:owner:u:c"]]).toEqual(["t2", "t2"]);
    expect(counts(after["flow:locks"])).toEqual({ one: "1", two: "1" });
    await ack("t2", 2, ok(taken));
    await drainedClean(tq);
  });

  it("successes with put-backs, a retry and a death in one ack: every slot freed once; a job put back runs before its follower", async () => {
    const { tq, fetched } = await setUp();
    const byKey = new Map(fetched.map((f) => [JSON.parse(f.raw).args[0] as string, f]));
    const outcomes: Outcome[] = fetched.map((job) => {
      const k = JSON.parse(job.raw).args[0] as string;
      if (k === "b") return { kind: "unstarted", job };
      if (k === "h") return { kind: "interrupted", job };
      if (k === "f") return { kind: "retry", job, updated: job.raw, delaySec: 3_600 };
      if (k === "e") return { kind: "dead", job, updated: job.raw, handlerFailed: true };
      return { kind: "succeeded", job };
    });
    const { after } = await ack("t1", 2, outcomes);
    expect(ownersOf(after)).toEqual([]);
    expect(counts(after["flow:locks"])).toEqual({});
    const queue = (after["queue:default"] as string[]).map((j) => JSON.parse(j).jid);
    // b and h went back to the head (the right end), each ahead of its follower
    for (const k of ["b", "h"]) {
      const own = queue.indexOf(JSON.parse(byKey.get(k)!.raw).jid);
      const follower = queue.indexOf(`f-${k}`);
      expect(follower, k).toBeGreaterThanOrEqual(0);
      expect(own, k).toBeGreaterThan(follower);
    }
    // f's retry waits an hour: its follower was sent on and runs; e is dead: its follower runs
    const { fetched: next } = await begin("t2", 50);
    const keys = next.map((f) => JSON.parse(f.raw).args[0] as string);
    expect(new Set(keys).size).toBe(keys.length); // never two of one key at once
    expect(
      next
        .filter((f) => ["b", "h"].includes(JSON.parse(f.raw).args[0]))
        .map((f) => JSON.parse(f.raw).jid)
        .sort(),
    ).toEqual([JSON.parse(byKey.get("b")!.raw).jid, JSON.parse(byKey.get("h")!.raw).jid].sort());
    await ack("t2", 2, ok(next));
    await h.redis.del(key("retry")); // the retry is not waited out
    await drainedClean(tq);
  });

  it("a long ack: 500 successes of four shapes in runs of random length, every name counted exactly", async () => {
    const tq = h.make(jobs);
    const names: Name[] = ["one", "two", ODD, "both", "lim", "plain"];
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % n);
    const specs: Spec[] = [];
    while (specs.length < 500) {
      const name = names[rnd(names.length)]!;
      for (let run = 1 + rnd(40); run > 0 && specs.length < 500; run--) specs.push(J(name, `k${specs.length}`));
    }
    await tq.enqueueBulk(bulk(specs));
    const { fetched, after } = await begin("t1", 500);
    expect(fetched).toHaveLength(500);
    const want: Record<string, string> = {};
    for (const s of specs)
      if (s.name !== "plain")
        want[escapeWord(s.name)] = String(Number(want[escapeWord(s.name)] ?? 0) + (s.name === "both" ? 2 : 1));
    expect(after["flow:locks"]).toEqual(want);
    const { after: acked } = await ack("t1", 2, ok(fetched));
    expect(ownersOf(acked)).toEqual([]);
    expect(counts(acked["flow:locks"])).toEqual({});
    await drainedClean(tq);
  });

  for (const lease of ["held", "lost"] as const) {
    it(`an ack of 1001 successes of shape one (two flushes), lease ${lease}, each key with a follower parked: all freed, all followers sent on`, async () => {
      const tq = h.make(jobs);
      const ks = Array.from({ length: 1001 }, (_, i) => `k${i}`);
      for (let from = 0; from < ks.length; from += 500)
        await tq.enqueueBulk(bulk(ks.slice(from, from + 500).map((k) => J(from % 1000 ? "two" : "one", k))));
      const { fetched } = await begin("t1", 1001);
      expect(fetched).toHaveLength(1001);
      for (let from = 0; from < ks.length; from += 500)
        await tq.enqueueBulk(bulk(ks.slice(from, from + 500).map((k) => J("one", k, "while-executing", `f-${k}`))));
      expect(await h.redis.hget(key("flow:waiting"), "one")).toBe("1001");
      if (lease === "lost") await h.redis.del(key("tick:t1"));
      await call(protocol.step, tickKeys("t1"), step("t1", 2, ok(fetched), 0));
      expect(await h.redis.keys(key("flow:owner:*"))).toEqual([]);
      expect(counts(await h.redis.hgetall(key("flow:locks")))).toEqual({});
      expect(counts(await h.redis.hgetall(key("flow:waiting")))).toEqual({});
      expect(await h.redis.keys(key("flow:park:*"))).toEqual([]);
      const queued = (await h.redis.lrange(key("queue:default"), 0, -1)).map((j) => JSON.parse(j).jid as string);
      expect(queued.sort()).toEqual(ks.map((k) => `f-${k}`).sort());
      expect(await h.redis.hlen(key("flow:sent"))).toBe(1001); // each waits for its slot as the one sent on
      await drainedClean(tq);
    }, 60_000);
  }
});
