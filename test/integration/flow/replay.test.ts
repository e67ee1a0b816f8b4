// Every script flow control changes, run twice with the same arguments:
// the second run leaves the state as the first left it and answers the
// same. And slots live and die with the holding tick: a late ack from a
// resurrected tick frees nothing, a dead holder's slot is freed.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { enqueueQueued } from "../../helpers/flow-queued.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import { beginKeys, beginNamed } from "../../helpers/begin-args.js";
import {
  acksOf,
  finishArgs,
  housekeepArgs,
  jobsOf,
  type Outcome,
  stepArgs,
  tickKeys,
} from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");
/** flow:sent's keys → the SHA-1 of the job sent on (its "UNTIL_MS" dropped). */
const sentOn = (state: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries((state["flow:sent"] ?? {}) as Record<string, string>).map(([k, v]) => [k, v.split(" ")[0]]),
  );
const beginArgs = (tick: string, fetch = 10, resurrect = 100) =>
  beginNamed({ tick, leaseMs: LEASE, batch: fetch, resurrectLimit: resurrect });
/** A step of tick `tick` (call `seq`) acking `outcomes`, then fetching `batch`. */
const step = (tick: string, seq: number, outcomes: Outcome[], batch: number) =>
  stepArgs({ tick, leaseMs: LEASE, call: seq, acks: acksOf(outcomes), batch });
const finish = (tick: string, seq: number, outcomes: Outcome[]) =>
  finishArgs({ tick, leaseMs: LEASE, call: seq, acks: acksOf(outcomes) });

describe.each(adapterCases)("flow scripts run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-replay");
  const { twice, call, callTwice, readsCallTwice } = scriptCalls(h);
  const jobs = {
    sync: { perform: () => {}, uniqueKey: ([k]: [string]) => k },
    call: { perform: () => {}, rateLimit: { key: () => "p", limit: 1, periodMs: 600_000 } },
  };
  const begin = (tick: string, fetch = 10, resurrect = 100) =>
    call(protocol.begin, beginKeys({ tick, leaseMs: LEASE }), beginArgs(tick, fetch, resurrect));
  const key = (name: string) => `${h.prefix}${name}`;

  it("enqueue: a resent call claims and parks once, and answers the duplicates' holders again", async () => {
    const tq = h.make(jobs);
    await h.redis.set(key("flow:owner:u:busy"), "other-tick"); // a key already at its limit
    // Catch the call's arguments as the client sends them, then replay them by hand.
    let sent: { keys: string[]; args: (string | number)[] } | undefined;
    const spy = h.make(jobs, {
      redis: { evalsha: async (_s, keys, args) => ((sent = { keys, args: args.slice(1) }), ""), eval: async () => "" },
    });
    await spy.enqueueBulk([
      { name: "sync", args: ["a"], unique: "until-executed", jid: "ja1" },
      { name: "sync", args: ["a"], unique: "until-executed", jid: "ja2" },
      { name: "sync", args: ["c"], unique: "coalesce", jid: "jc1" },
      { name: "sync", args: ["c"], unique: "coalesce", jid: "jc2" },
      { name: "sync", args: ["busy"], unique: "while-executing", jid: "jb" },
    ]);
    const keys = sent!.keys.map((k) => k.slice(h.prefix.length));
    const { first, after } = await twice(protocol.enqueue.script, keys, sent!.args);
    expect(first).toBe("12121 ja1 jc1");
    expect(after["flow:claim:a"]).toBe("ja1");
    expect(after["flow:wait:c"]).toBe("jc1");
    expect(after["queue:default"]).toHaveLength(2);
    expect(after["flow:park:u:busy"]).toHaveLength(1);
    expect(after["flow:waiting"]).toEqual({ sync: "1" });
    expect((await tq.stats()).flow.sync).toEqual({ locksHeld: 0, waiting: 1, deferred: 0 });
  });

  it("enqueue: a burst on a free key queues its first job and parks the rest behind it; a resent call parks nothing more", async () => {
    let sent: { keys: string[]; args: (string | number)[] } | undefined;
    const spy = h.make(jobs, {
      redis: { evalsha: async (_s, keys, args) => ((sent = { keys, args: args.slice(1) }), ""), eval: async () => "" },
    });
    await spy.enqueueBulk(
      ["b1", "b2", "b3"].map((jid) => ({
        name: "sync" as const,
        args: ["k"] as [string],
        unique: "while-executing" as const,
        jid,
      })),
    );
    const keys = sent!.keys.map((k) => k.slice(h.prefix.length));
    const { first, after } = await twice(protocol.enqueue.script, keys, sent!.args);
    expect(first).toBe("111");
    const queued = after["queue:default"] as string[];
    expect(queued.map((j) => JSON.parse(j).jid)).toEqual(["b1"]);
    expect((after["flow:park:u:k"] as string[]).map((j) => JSON.parse(j).jid)).toEqual(["b3", "b2"]); // oldest at the right
    expect(sentOn(after)).toEqual({ "u:k": sha1(queued[0]!) }); // b1 waits for the slot
    expect(after["flow:waiting"]).toEqual({ sync: "2" });
  });

  it("enqueue: a job of a key whose newest queued job is another key's queues; nothing is sent on", async () => {
    const tq = h.make(jobs);
    await tq.enqueue("sync", ["k"], { unique: "while-executing" });
    await tq.enqueue("sync", ["other"], { unique: "while-executing" });
    await tq.enqueue("sync", ["k"], { unique: "while-executing" }); // its first is queued, but not newest: the fetch parks it
    expect(await h.redis.llen(key("queue:default"))).toBe(3);
    expect(await h.redis.exists(key("flow:sent"))).toBe(0);
  });

  it("begin: duplicates due from the schedule at once: the first is queued and starts, the rest park behind it, once", async () => {
    const tq = h.make(jobs);
    await tq.enqueueBulk(
      ["s1", "s2", "s3"].map((jid) => ({
        name: "sync" as const,
        args: ["k"] as [string],
        unique: "while-executing" as const,
        jid,
        delayMs: 1,
      })),
    );
    await new Promise((r) => setTimeout(r, 20));
    const { first, after } = await callTwice(protocol.begin, tickKeys("t1"), beginArgs("t1"));
    const started = jobsOf(first.fetched);
    expect(started).toHaveLength(1);
    const parked = (after["flow:park:u:k"] as string[]).map((j) => JSON.parse(j).jid);
    expect(parked).toHaveLength(2);
    expect([JSON.parse(started[0]!.raw).jid, ...parked].sort()).toEqual(["s1", "s2", "s3"]);
    expect(sentOn(after)).toEqual({ "u:k": sha1(started[0]!.raw) });
    expect(after["flow:waiting"]).toEqual({ sync: "2" });
    expect(after.schedule).toBeUndefined();
  });

  it("begin: the job sent on for a busy key, parked by the fetch, is forgotten, so the next release sends the oldest parked on", async () => {
    const tq = h.make(jobs);
    await tq.enqueueBulk(
      ["j", "p"].map((jid) => ({
        name: "sync" as const,
        args: ["k"] as [string],
        unique: "while-executing" as const,
        jid,
      })),
    );
    expect(Object.keys(sentOn(await snapshot(h.redis, h.prefix)))).toEqual(["u:k"]); // j waits; p parked behind it
    await h.redis.set(key("tick:other"), "1", "PX", 60_000); // then another live tick takes the key
    await h.redis.set(key("flow:owner:u:k"), "other");
    const { first, after } = await callTwice(protocol.begin, tickKeys("t1"), beginArgs("t1"));
    expect(jobsOf(first.fetched)).toEqual([]);
    expect((after["flow:park:u:k"] as string[]).map((j) => JSON.parse(j).jid).sort()).toEqual(["j", "p"]);
    expect(after["flow:sent"]).toBeUndefined();
  });

  it("move: deleting a job its rate limit deferred ends its deferred record, once", async () => {
    const tq = h.make(jobs);
    await tq.enqueueBulk([
      { name: "call", args: [], jid: "c1" },
      { name: "call", args: [], jid: "c2" },
    ]);
    await begin("t1"); // c1 starts, c2 is deferred to the schedule
    const [deferred] = await h.redis.zrange(key("schedule"), "0", "0");
    expect(await h.redis.zrange(key("flow:deferred:call"), "0", "-1")).toEqual(["c2"]);
    const { first, after } = await callTwice(
      protocol.move,
      { queues: "queues" },
      {
        token: "tok",
        keepMs: 60_000,
        jobs: [{ from: "schedule", job: deferred!, action: "delete", push: "", distance: "" }],
      },
    );
    expect(first).toBe("1");
    expect(after.schedule).toBeUndefined();
    expect(after["flow:deferred:call"]).toBeUndefined();
    expect((await tq.stats()).flow.call!.deferred).toBe(0);
  });

  it("step: the ack of the job sent on forgets it, and the job it sends on is the next sent on; the last ack leaves none", async () => {
    const tq = h.make(jobs);
    await tq.enqueueBulk(
      [1, 2].map((i) => ({
        name: "sync" as const,
        args: ["k"] as [string],
        unique: "while-executing" as const,
        jid: `j${i}`,
      })),
    );
    const [held] = jobsOf((await begin("t1")).fetched);
    expect(sentOn(await snapshot(h.redis, h.prefix))).toEqual({ "u:k": sha1(held!.raw) }); // still named while it runs
    const ack = (tick: string, job: typeof held) => step(tick, 2, [{ kind: "succeeded", job: job! }], 0);
    const { after } = await callTwice(protocol.step, tickKeys("t1"), ack("t1", held));
    const queued = after["queue:default"] as string[];
    expect(queued.map((j) => JSON.parse(j).jid)).toEqual(["j2"]);
    expect(sentOn(after)).toEqual({ "u:k": sha1(queued[0]!) });
    expect(after["flow:park:u:k"]).toBeUndefined();
    const [next] = jobsOf((await begin("t2")).fetched);
    const last = await callTwice(protocol.step, tickKeys("t2"), ack("t2", next));
    expect(
      Object.keys(last.after)
        .filter((k) => k.startsWith("flow:"))
        .sort(),
    ).toEqual(["flow:fence", "flow:locks", "flow:waiting"]); // counters
  });

  it("begin: distinct free keys are all taken at once (MSETNX); a replay answers the same and takes nothing more", async () => {
    const tq = h.make(jobs);
    await tq.enqueueBulk(
      ["a", "b", "c"].map((k) => ({
        name: "sync" as const,
        args: [k] as [string],
        unique: "while-executing" as const,
      })),
    );
    const { first, after } = await callTwice(protocol.begin, tickKeys("t1"), beginArgs("t1"));
    expect(jobsOf(first.fetched)).toHaveLength(3);
    const { capped, fence: before, parked } = first.flow!;
    expect(capped).toBe(false);
    expect(parked).toBe(false);
    expect([after["flow:owner:u:a"], after["flow:owner:u:b"], after["flow:owner:u:c"]]).toEqual(["t1", "t1", "t1"]);
    expect(after["flow:fence"]).toBe(String(before! + 3));
    expect(after["flow:locks"]).toEqual({ sync: "3" });
  });

  it("begin: distinct keys, one held by a live tick: nothing is taken at once; the free ones start, the held one parks", async () => {
    const tq = h.make(jobs);
    await h.redis.set(key("flow:owner:u:b"), "other");
    await h.redis.set(key("tick:other"), "1", "PX", 60_000);
    await tq.enqueueBulk(
      ["a", "b", "c"].map((k) => ({
        name: "sync" as const,
        args: [k] as [string],
        unique: "while-executing" as const,
      })),
    );
    const { first, after } = await callTwice(protocol.begin, tickKeys("t1"), beginArgs("t1"));
    expect(jobsOf(first.fetched).map((f) => JSON.parse(f.raw).args[0])).toEqual(["a", "c"]);
    expect([after["flow:owner:u:a"], after["flow:owner:u:b"], after["flow:owner:u:c"]]).toEqual(["t1", "other", "t1"]);
    expect(after["flow:park:u:b"]).toHaveLength(1);
    expect(after["flow:fence"]).toBe(String(first.flow!.fence + 2));
    expect(after["flow:waiting"]).toEqual({ sync: "1" });
  });

  it("begin: a flow job whose descriptor cannot be read goes to the dead set once; a replay moves nothing", async () => {
    const tq = h.make(jobs);
    await tq.enqueue("sync", ["a"], { unique: "while-executing" });
    await h.redis.lpush(
      key("queue:default"),
      '{"tickq_flow":"sync default u|u:b","class":"sync","args":["b"],"jid":"bad"}',
    );
    const { first, after } = await callTwice(protocol.begin, tickKeys("t1"), beginArgs("t1"));
    expect(jobsOf(first.fetched).map((f) => JSON.parse(f.raw).args)).toEqual([["a"]]);
    expect(first.flow).toEqual({ capped: false, fence: expect.any(Number), parked: false }); // the readable flow job gets the one fence after it
    expect(after.dead).toHaveLength(2); // one entry, with its score
    expect(JSON.parse(String((after.dead as string[])[0]))).toMatchObject({ error_class: "TickqMalformedJob" });
    expect(after["flow:owner:u:b"]).toBeUndefined();
  });

  it("begin: slots taken, a full key's jobs parked, an over-limit job deferred; a replay answers the same and moves nothing", async () => {
    const tq = h.make(jobs);
    await tq.enqueueBulk(
      [1, 2, 3].map(() => ({ name: "sync" as const, args: ["a"] as [string], unique: "while-executing" as const })),
    );
    await tq.enqueueBulk([
      { name: "call", args: [] },
      { name: "call", args: [] },
    ]);
    const { first, after } = await callTwice(protocol.begin, tickKeys("t1"), beginArgs("t1"));
    const fetched = jobsOf(first.fetched);
    expect(fetched.map((f) => JSON.parse(f.raw).class).sort()).toEqual(["call", "sync"]);
    expect(first.ordered).toEqual([]);
    // not capped; the fence before the call's: the two flow jobs fetched get the next two
    const { capped, fence: before, parked } = first.flow!;
    expect(capped).toBe(false);
    expect(parked).toBe(true); // jobs parked
    expect(after["flow:fence"]).toBe(String(before! + 2));
    expect(Object.keys(after).filter((k) => k.startsWith("flow:owner:"))).toEqual(["flow:owner:u:a"]);
    expect(after["flow:park:u:a"]).toHaveLength(2);
    expect(after.schedule).toHaveLength(2); // one job, with its score
    expect(after["flow:locks"]).toEqual({ sync: "1" });
    expect(after["flow:waiting"]).toEqual({ sync: "2" });
    const stats = await tq.stats();
    expect(stats.flow).toEqual({
      sync: { locksHeld: 1, waiting: 2, deferred: 0 },
      call: { locksHeld: 0, waiting: 0, deferred: 1 },
    });
  });

  it("begin: past a busy key's duplicates it reads on in growing chunks, and what a chunk holds past the batch goes back to the head in order", async () => {
    const tq = h.make({ ...jobs, quick: () => {} });
    await enqueueQueued(
      h,
      tq,
      [1, 2, 3, 4, 5].map(() => ({
        name: "sync" as const,
        args: ["busy"] as [string],
        unique: "while-executing" as const,
      })),
    );
    await tq.enqueueBulk(Array.from({ length: 10 }, (_, i) => ({ name: "quick" as const, args: [i] as never })));
    await h.redis.set(key("tick:other"), "1", "PX", 60_000); // a live tick holds the key
    await h.redis.set(key("flow:owner:u:busy"), "other");
    const queued = await h.redis.lrange(key("queue:default"), 0, -1); // newest first
    // a batch of 3: the first chunk (3) is all duplicates, the next (6) holds 2 more and 4 plain jobs: 3 start, 1 goes back
    const { first, after } = await callTwice(protocol.begin, tickKeys("t1"), beginArgs("t1", 3));
    const fetched = jobsOf(first.fetched);
    expect(fetched.map((f) => JSON.parse(f.raw).args[0])).toEqual([0, 1, 2]);
    expect(after["queue:default"]).toEqual(queued.slice(0, 7)); // plain 3..9, in their order, 3 at the head
    expect(after["flow:park:u:busy"]).toHaveLength(5);
    expect(after["flow:waiting"]).toEqual({ sync: "5" });
  });

  it("begin: a busy key's run of duplicates is parked as it is read, in order; those newer than the batch are parked, not put back too", async () => {
    const tq = h.make({ ...jobs, quick: () => {} });
    const dup = (jid: string) => ({
      name: "sync" as const,
      args: ["busy"] as [string],
      unique: "while-executing" as const,
      jid,
    });
    const quick = (i: number) => ({ name: "quick" as const, args: [i] as never });
    await enqueueQueued(h, tq, [dup("da"), dup("db"), quick(0), quick(1), dup("dc"), dup("dd"), quick(2)]);
    await h.redis.set(key("tick:other"), "1", "PX", 60_000); // a live tick holds the key
    await h.redis.set(key("flow:owner:u:busy"), "other");
    // a batch of 2: the first chunk (2) is da, db; the next (4) holds q0, q1, dc, dd: q0 and q1 fill the batch,
    // and dc, dd, read already, are parked rather than put back
    const { first, after } = await callTwice(protocol.begin, tickKeys("t1"), beginArgs("t1", 2));
    expect(jobsOf(first.fetched).map((f) => JSON.parse(f.raw).args[0])).toEqual([0, 1]);
    expect((after["queue:default"] as string[]).map((j) => JSON.parse(j).args[0])).toEqual([2]);
    expect((after["flow:park:u:busy"] as string[]).map((j) => JSON.parse(j).jid)).toEqual(["dd", "dc", "db", "da"]); // oldest at the right
    expect(after["flow:waiting"]).toEqual({ sync: "4" });
    expect(after["flow:owner:u:busy"]).toBe("other");
  });

  it("begin: two names sharing a busy key, in runs: each run is counted for its own name", async () => {
    const tq = h.make({ ...jobs, other: { perform: () => {}, uniqueKey: ([k]: [string]) => k } });
    const of = (name: "sync" | "other", jid: string) => ({
      name,
      args: ["busy"] as [string],
      unique: "while-executing" as const,
      jid,
    });
    await enqueueQueued(h, tq, [
      of("other", "o1"),
      of("sync", "s1"),
      of("sync", "s2"),
      of("other", "o2"),
      of("other", "o3"),
      of("sync", "s3"),
    ]);
    await h.redis.set(key("tick:other"), "1", "PX", 60_000);
    await h.redis.set(key("flow:owner:u:busy"), "other");
    const { first, after } = await callTwice(protocol.begin, tickKeys("t1"), beginArgs("t1", 10));
    expect(jobsOf(first.fetched)).toEqual([]);
    expect((after["flow:park:u:busy"] as string[]).map((j) => JSON.parse(j).jid)).toEqual([
      "s3",
      "o3",
      "o2",
      "s2",
      "s1",
      "o1",
    ]);
    expect(after["flow:waiting"]).toEqual({ sync: "3", other: "3" });
  });

  it("begin: duplicates of a key whose holder's lease is gone are not parked as read: the first frees and takes the slot, the rest park", async () => {
    const tq = h.make(jobs);
    await enqueueQueued(
      h,
      tq,
      ["d1", "d2", "d3"].map((jid) => ({
        name: "sync" as const,
        args: ["a"] as [string],
        unique: "while-executing" as const,
        jid,
      })),
    );
    await h.redis.set(key("flow:owner:u:a"), "gone"); // no tick:gone: its lease is gone
    const { first, after } = await callTwice(protocol.begin, tickKeys("t1"), beginArgs("t1"));
    expect(jobsOf(first.fetched).map((f) => JSON.parse(f.raw).jid)).toEqual(["d1"]);
    expect(after["flow:owner:u:a"]).toBe("t1");
    expect((after["flow:park:u:a"] as string[]).map((j) => JSON.parse(j).jid)).toEqual(["d3", "d2"]);
  });

  it("step: the holder's ack frees its slot and sends one parked job to the head of its queue, once", async () => {
    const tq = h.make(jobs);
    await tq.enqueueBulk(
      [1, 2, 3].map(() => ({ name: "sync" as const, args: ["a"] as [string], unique: "while-executing" as const })),
    );
    const [held] = jobsOf((await begin("t1")).fetched);
    const args = step("t1", 2, [{ kind: "succeeded", job: held! }], 0);
    const { after } = await callTwice(protocol.step, tickKeys("t1"), args);
    expect(after["flow:owner:u:a"]).toBeUndefined();
    expect(after["flow:park:u:a"]).toHaveLength(1);
    expect(after["queue:default"]).toHaveLength(1);
    expect(after["flow:locks"]).toEqual({ sync: "0" });
    expect(after["flow:waiting"]).toEqual({ sync: "1" });
  });

  it("step: successes of distinct keys settle at once and a chunk of distinct free keys is taken at once, each once", async () => {
    const tq = h.make(jobs);
    const some = (keys: string[]) =>
      keys.map((k) => ({ name: "sync" as const, args: [k] as [string], unique: "while-executing" as const }));
    await tq.enqueueBulk(some(["a", "b", "c"]));
    const held = jobsOf((await begin("t1", 3)).fetched);
    const counter = Number(await h.redis.get(key("flow:fence")));
    await tq.enqueueBulk([...some(["a", "d", "e"]), { name: "call" as const, args: [] }]); // a: free again by the acks below
    // acks of a, b, c (one run of a shape); the fetch's first chunk is a, d, e (the commonest chunk); call comes after
    const args = step(
      "t1",
      2,
      held.map((job) => ({ kind: "succeeded" as const, job })),
      3,
    );
    const { first, after } = await callTwice(protocol.step, tickKeys("t1"), args);
    expect(jobsOf(first.fetched).map((f) => JSON.parse(f.raw).args[0])).toEqual(["a", "d", "e"]);
    expect(first.missed).toEqual([]); // no ack missed
    const { capped, fence: before, parked } = first.flow!;
    expect(capped).toBe(false);
    expect(before).toBeGreaterThanOrEqual(counter); // on from the fences begin handed out
    expect(parked).toBe(false);
    expect(
      Object.keys(after)
        .filter((k) => k.startsWith("flow:owner:"))
        .sort(),
    ).toEqual(["flow:owner:u:a", "flow:owner:u:d", "flow:owner:u:e"]);
    expect([after["flow:owner:u:a"], after["flow:owner:u:d"], after["flow:owner:u:e"]]).toEqual(["t1", "t1", "t1"]);
    expect(after["flow:fence"]).toBe(String(before! + 3));
    expect(after["flow:locks"]).toEqual({ sync: "3" });
    expect(after["queue:default"]).toHaveLength(1);
    expect(await h.redis.get(key("stat:processed"))).toBe("3");
  });

  it("finish: an unstarted flow job frees its slot and waits again; until-executed keeps its claim", async () => {
    const tq = h.make(jobs);
    await tq.enqueue("sync", ["a"], { unique: "until-executed" });
    await tq.enqueue("sync", ["c"], { unique: "coalesce" });
    const fetched = jobsOf((await begin("t1")).fetched);
    expect(await h.redis.exists(key("flow:wait:c"))).toBe(0); // started: no longer waiting
    const args = finish(
      "t1",
      2,
      fetched.map((job) => ({ kind: "unstarted" as const, job })),
    );
    const { after } = await callTwice(protocol.finish, tickKeys("t1"), args);
    expect(after["queue:default"]).toHaveLength(2);
    expect(after["flow:owner:u:c"]).toBeUndefined();
    expect(after["flow:claim:a"]).toBeDefined();
    expect(after["flow:wait:c"]).toBeDefined(); // waiting again
  });

  it("housekeep: resurrecting a dead holder frees its slot and unparks once", async () => {
    const tq = h.make(jobs);
    await tq.enqueueBulk(
      [1, 2].map(() => ({ name: "sync" as const, args: ["a"] as [string], unique: "while-executing" as const })),
    );
    const [held] = jobsOf((await begin("dead-tick")).fetched);
    await h.redis.del(key("tick:dead-tick"), key("resurrector"));
    await begin("t2", 0, 0);
    const { first, after } = await callTwice(
      protocol.housekeep,
      tickKeys("t2"),
      housekeepArgs({ tick: "t2", call: 2 }),
    );
    expect(first.resurrected).toBe(1);
    expect(after["flow:owner:u:a"]).toBeUndefined();
    expect(after["flow:park:u:a"]).toBeUndefined();
    // the dead tick's job and the parked one; the older, resurrected, at the head (right) to run first
    expect(after["queue:default"]).toHaveLength(2);
    expect((after["queue:default"] as string[])[1]).toBe(held!.raw);
    expect(after["flow:locks"]).toEqual({ sync: "0" });
    expect(after["flow:waiting"]).toEqual({ sync: "0" });
  });

  it("stats, flow sizes: reads only", async () => {
    await h.make(jobs).enqueue("sync", ["a"], { unique: "while-executing" });
    await h.make(jobs).enqueue("sync", ["a"], { unique: "until-executed" });
    const [first, second] = await readsCallTwice(
      protocol.stats,
      { queues: "queues", ticks: "ticks" },
      { flowNames: ["sync", "call"], orderedNames: [], workflowNames: [] },
    );
    expect(first.flow).toEqual([
      [0, 0, 0],
      [0, 0, 0],
    ]);
    expect(second.flow).toEqual(first.flow);
  });

  it("a tick resurrected while it froze frees nothing with its late acks: the slot is the new holder's", async () => {
    const tq = h.make(jobs);
    await tq.enqueueBulk(
      [1, 2].map(() => ({ name: "sync" as const, args: ["a"] as [string], unique: "while-executing" as const })),
    );
    const [mine] = jobsOf((await begin("t1")).fetched);
    await h.redis.del(key("tick:t1"), key("resurrector"));
    await begin("t2");
    expect(await h.redis.get(key("flow:owner:u:a"))).toBe("t2");
    const before = await snapshot(h.redis, h.prefix);
    await call(protocol.step, tickKeys("t1"), step("t1", 2, [{ kind: "succeeded", job: mine! }], 10));
    await call(protocol.finish, tickKeys("t1"), finish("t1", 3, [{ kind: "unstarted", job: mine! }]));
    const after = await snapshot(h.redis, h.prefix);
    delete before.ticks;
    delete after.ticks;
    expect(after).toEqual(before);
  });

  it("a fetch that finds a key full frees the slots of holders whose lease is gone", async () => {
    const tq = h.make(jobs);
    await tq.enqueueBulk(
      [1, 2, 3].map(() => ({ name: "sync" as const, args: ["a"] as [string], unique: "while-executing" as const })),
    );
    await begin("t1");
    await h.redis.del(key("tick:t1"), key("resurrector")); // t1 died; no resurrection yet
    await h.redis.rpoplpush(key("flow:park:u:a"), key("queue:default")); // a parked job reaches the queue
    const fetched = jobsOf((await begin("t2", 10, 0)).fetched);
    expect(fetched).toHaveLength(1);
    expect(await h.redis.get(key("flow:owner:u:a"))).toBe("t2");
  });
});
