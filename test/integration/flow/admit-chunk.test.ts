// A fetched chunk of shape `one` jobs on distinct free keys is taken in one
// step, and any other chunk falls through to the general path with nothing
// written (lib/flow/admit.lua admit_run): started, parked, owners, fences and
// counters are exact, a replay changes nothing, and all drains to nothing.
import { describe, expect, it } from "vitest";
import type { Outcome } from "../../../src/tick/passes/ack.js";
import type { FetchedJob } from "../../../src/tick/passes/fetch.js";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { enqueueQueued } from "../../helpers/flow-queued.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { beginNamed } from "../../helpers/begin-args.js";
import { acksOf, jobsOf, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 60_000;
const QUEUES = ["default", "q2"];
/** A step of `tick` (call `seq`) acking `outcomes`, then fetching `batch` from QUEUES. */
const step = (tick: string, seq: number, outcomes: Outcome[], batch: number) =>
  stepArgs({ tick, leaseMs: LEASE, deadMaxSize: 1_000, call: seq, acks: acksOf(outcomes), batch, queues: QUEUES });
const beginArgs = (tick: string, batch: number, resurrect = 0) =>
  beginNamed({
    tick,
    leaseMs: LEASE,
    deadMaxSize: 1_000,
    queues: [...QUEUES],
    batch,
    resurrectLimit: resurrect,
    scheduleLimit: 1_000,
  });

type A = [string];
const key0 = ([k]: A) => k;
const jobs = {
  one: { perform: () => {}, uniqueKey: key0 },
  two: { perform: () => {}, uniqueKey: key0 },
  plain: { perform: () => {} },
};
type Name = keyof typeof jobs;
const we = "while-executing" as const;
const J = (name: Name, key: string, queue = "default", jid?: string) =>
  name === "plain" ? { name, args: [key] as A, queue, jid } : { name, args: [key] as A, unique: we, queue, jid };
const argOf = (f: FetchedJob) => `${JSON.parse(f.raw).class}:${JSON.parse(f.raw).args[0]}`;

describe.each(adapterCases.slice(0, 1))(
  "a fetched chunk taken at once or by the general path over $name",
  (adapterCase) => {
    const h = useHarness(adapterCase, "adv4-chunks");
    const { callTwice } = scriptCalls(h);
    const key = (k: string) => `${h.prefix}${k}`;

    const begin = async (tick: string, batch: number, resurrect = 0) => {
      const { first, after } = await callTwice(protocol.begin, tickKeys(tick), beginArgs(tick, batch, resurrect));
      const flow = first.flow;
      // fences this call handed out: the counter now, less its value before the call's first
      const fenced = Number(after["flow:fence"] ?? 0) - (flow?.fence ?? 0);
      return { fetched: jobsOf(first.fetched), flow, fenced, after };
    };
    const ack = (tick: string, seq: number, outcomes: Outcome[], fetch = 0) =>
      callTwice(protocol.step, tickKeys(tick), step(tick, seq, outcomes, fetch));
    const ok = (fetched: FetchedJob[]): Outcome[] => fetched.map((job) => ({ kind: "succeeded", job }));
    const owners = (after: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(after)
          .filter(([k]) => k.startsWith("flow:owner:"))
          .map(([k, v]) => [k.slice("flow:owner:".length), v]),
      );

    /** Runs everything left (ticks through the API, dead ticks resurrected), then asserts nothing of flow control is left. */
    const drainedClean = async (tq: {
      tick: (o: { batch: number; budgetMs: number }) => Promise<unknown>;
      stats: () => Promise<{ flow: Record<string, unknown> }>;
    }) => {
      // the scripted ticks (t0, t1, t2) end: what they still hold is resurrected
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
      for (const [name, n] of Object.entries(await h.redis.hgetall(key("flow:locks"))))
        expect(n, `flow:locks ${name}`).toBe("0");
      for (const [name, n] of Object.entries(await h.redis.hgetall(key("flow:waiting"))))
        expect(n, `flow:waiting ${name}`).toBe("0");
      for (const [name, s] of Object.entries((await tq.stats()).flow))
        expect(s, name).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
    };

    it("two names of shape one, distinct keys, interleaved: all start (general path), each name counted; one ack of both settles both", async () => {
      const tq = h.make(jobs, { queues: QUEUES });
      await tq.enqueueBulk([J("one", "a"), J("two", "b"), J("one", "c"), J("two", "d")]);
      const { fetched, flow, fenced, after } = await begin("t1", 10);
      expect(fetched.map(argOf)).toEqual(["one:a", "two:b", "one:c", "two:d"]);
      expect(flow).toEqual({ capped: false, fence: expect.any(Number), parked: false }); // not capped, nothing parked
      expect(fenced).toBe(4);
      expect(after["flow:locks"]).toEqual({ one: "2", two: "2" });
      expect(owners(after)).toEqual({ "u:a": "t1", "u:b": "t1", "u:c": "t1", "u:d": "t1" });
      const { after: acked } = await ack("t1", 2, ok(fetched));
      expect(owners(acked)).toEqual({});
      expect(acked["flow:locks"]).toEqual({ one: "0", two: "0" });
      await drainedClean(tq);
    });

    it("two names sharing a key in one chunk: the older starts, the other parks under its own name", async () => {
      const tq = h.make(jobs, { queues: QUEUES });
      await enqueueQueued(h, tq, [J("one", "a"), J("two", "a"), J("one", "b")]);
      const { fetched, after } = await begin("t1", 10);
      expect(fetched.map(argOf)).toEqual(["one:a", "one:b"]);
      expect((after["flow:park:u:a"] as string[]).map((j) => JSON.parse(j).class)).toEqual(["two"]);
      expect(after["flow:locks"]).toEqual({ one: "2" });
      expect(after["flow:waiting"]).toEqual({ two: "1" });
      const { after: acked } = await ack("t1", 2, ok(fetched), 10);
      // the parked one was sent to the queue's head and the step's fetch started it
      expect(owners(acked)).toEqual({ "u:a": "t1" });
      expect(acked["flow:locks"]).toEqual({ one: "0", two: "1" });
      expect(acked["flow:waiting"]).toEqual({ two: "0" });
      await drainedClean(tq);
    });

    for (const order of [
      ["flow", "plain"],
      ["plain", "flow"],
    ] as const) {
      it(`a chunk whose oldest is ${order[0]} and newest ${order[1]}: all start, the flow ones counted`, async () => {
        const tq = h.make(jobs, { queues: QUEUES });
        const make = (kind: string, k: string) => (kind === "flow" ? J("one", k) : J("plain", k));
        await tq.enqueueBulk([make(order[0], "a"), J("one", "b"), make(order[1], "c")]);
        const { fetched, fenced, after } = await begin("t1", 10);
        expect(fetched.map(argOf)).toEqual([
          `${order[0] === "flow" ? "one" : "plain"}:a`,
          "one:b",
          `${order[1] === "flow" ? "one" : "plain"}:c`,
        ]);
        expect(after["flow:locks"]).toEqual({ one: "2" });
        expect(fenced).toBe(2);
        const { after: acked } = await ack("t1", 2, ok(fetched));
        expect(owners(acked)).toEqual({});
        expect(acked["flow:locks"]).toEqual({ one: "0" });
        await drainedClean(tq);
      });
    }

    for (const keys of [
      ["a", "a", "b", "c"],
      ["a", "b", "c", "a"],
      ["b", "a", "c", "a"],
      ["a", "b", "b", "c"],
      ["a", "a"],
    ]) {
      it(`a duplicate in the chunk (${keys.join(",")}, oldest first): its older job starts, the newer parks; nothing taken twice`, async () => {
        const tq = h.make(jobs, { queues: QUEUES });
        const jids = await enqueueQueued(
          h,
          tq,
          keys.map((k, i) => J("one", k, "default", `j${i}`)),
        );
        const { fetched, fenced, after } = await begin("t1", 10);
        const distinct = [...new Set(keys)];
        expect(fetched.map(argOf)).toEqual(distinct.map((k) => `one:${k}`));
        expect(fetched.map((f) => JSON.parse(f.raw).jid)).toEqual(distinct.map((k) => jids[keys.indexOf(k)]));
        expect(after["flow:locks"]).toEqual({ one: String(distinct.length) });
        expect(after["flow:waiting"]).toEqual({ one: String(keys.length - distinct.length) });
        expect(fenced).toBe(distinct.length);
        expect(Object.values(owners(after))).toEqual(distinct.map(() => "t1"));
        const { after: acked } = await ack("t1", 2, ok(fetched), 10); // frees, sends the parked one on, which starts
        const dups = [...new Set(keys.filter((k, i) => keys.indexOf(k) !== i))];
        expect(owners(acked)).toEqual(Object.fromEntries(dups.map((k) => [`u:${k}`, "t1"]))); // the parked duplicate started, alone
        expect(acked["flow:locks"]).toEqual({ one: String(keys.length - distinct.length) });
        expect(acked["flow:waiting"]).toEqual({ one: "0" });
        await drainedClean(tq);
      });
    }

    it("a key in the middle held by a dead tick: swept, all start; the dead tick's resurrection frees nothing of the new holder's and corrects the count", async () => {
      const tq = h.make(jobs, { queues: QUEUES });
      await tq.enqueue("one", ["b"], { unique: we });
      const { fetched: dead } = await begin("t0", 10);
      expect(dead.map(argOf)).toEqual(["one:b"]);
      await h.redis.del(key("tick:t0"), key("resurrector")); // t0 died
      await enqueueQueued(h, tq, [J("one", "a"), J("one", "b", "default", "b2"), J("one", "c")]);
      const { fetched, after } = await begin("t1", 10); // no resurrection in this begin
      expect(fetched.map(argOf)).toEqual(["one:a", "one:b", "one:c"]);
      expect(owners(after)).toEqual({ "u:a": "t1", "u:b": "t1", "u:c": "t1" });
      expect(after["flow:locks"]).toEqual({ one: "4" }); // t0's job is still listed, counted until resurrected
      // t2 resurrects t0: its b goes back to the queue and parks behind t1's b at the next fetch
      const { fetched: next, after: later } = await begin("t2", 10, 100);
      expect(next).toEqual([]);
      expect(later["flow:owner:u:b"]).toBe("t1");
      expect(later["flow:locks"]).toEqual({ one: "3" });
      expect((later["flow:park:u:b"] as string[]).map((j) => JSON.parse(j).jid)).toEqual([
        JSON.parse(dead[0]!.raw).jid,
      ]);
      const { after: acked } = await ack("t1", 2, ok(fetched));
      expect(owners(acked)).toEqual({});
      expect(acked["flow:locks"]).toEqual({ one: "0" });
      await drainedClean(tq);
    });

    it("a key in the middle held by a live tick: nothing is taken at once; the others start, it parks", async () => {
      const tq = h.make(jobs, { queues: QUEUES });
      await tq.enqueue("one", ["b"], { unique: we });
      const { fetched: held } = await begin("t0", 10);
      await enqueueQueued(h, tq, [J("one", "a"), J("one", "b"), J("one", "c")]);
      const { fetched, fenced, after } = await begin("t1", 10);
      expect(fetched.map(argOf)).toEqual(["one:a", "one:c"]);
      expect(owners(after)).toEqual({ "u:a": "t1", "u:b": "t0", "u:c": "t1" });
      expect(after["flow:locks"]).toEqual({ one: "3" });
      expect(after["flow:waiting"]).toEqual({ one: "1" });
      expect(fenced).toBe(2); // t0 took b's fence before
      await ack("t1", 2, ok(fetched));
      const { after: acked } = await ack("t0", 2, ok(held), 10); // frees b, sends its parked job on, starts it
      expect(owners(acked)).toEqual({ "u:b": "t0" });
      expect(acked["flow:locks"]).toEqual({ one: "1" });
      await drainedClean(tq);
    });

    for (const n of [1, 2, 100, 1000, 1001]) {
      it(`a batch of ${n} distinct free keys: all start, ${n} fences; one ack frees all`, async () => {
        const tq = h.make(jobs, { queues: QUEUES });
        const ks = Array.from({ length: n }, (_, i) => `k${i}`);
        for (let from = 0; from < n; from += 500)
          await tq.enqueueBulk(ks.slice(from, from + 500).map((k) => J("one", k)));
        const { fetched, flow, fenced, after } = await begin("t1", n);
        expect(fetched.map(argOf)).toEqual(ks.map((k) => `one:${k}`));
        expect(flow).toEqual({ capped: false, fence: expect.any(Number), parked: false }); // not capped, nothing parked
        expect(fenced).toBe(n);
        expect(after["flow:locks"]).toEqual({ one: String(n) });
        expect(Object.keys(owners(after))).toHaveLength(n);
        const { after: acked } = await ack("t1", 2, ok(fetched));
        expect(owners(acked)).toEqual({});
        expect(acked["flow:locks"]).toEqual({ one: "0" });
        await drainedClean(tq);
      });
    }

    it("more distinct free keys than the batch: the batch starts, the rest stay queued in order", async () => {
      const tq = h.make(jobs, { queues: QUEUES });
      const ks = Array.from({ length: 7 }, (_, i) => `k${i}`);
      await tq.enqueueBulk(ks.map((k) => J("one", k)));
      const queued = await h.redis.lrange(key("queue:default"), 0, -1);
      const { fetched, after } = await begin("t1", 5);
      expect(fetched.map(argOf)).toEqual(ks.slice(0, 5).map((k) => `one:${k}`));
      expect(after["queue:default"]).toEqual(queued.slice(0, 2));
      expect(after["flow:locks"]).toEqual({ one: "5" });
      await ack("t1", 2, ok(fetched));
      await drainedClean(tq);
    });

    it("one key in two queues, fetched by one call: the first queue's chunk takes it at once, the second's job parks", async () => {
      const tq = h.make(jobs, { queues: QUEUES });
      await enqueueQueued(h, tq, [J("one", "a", "default"), J("one", "a", "q2"), J("one", "b", "q2")]);
      const { fetched, after } = await begin("t1", 10);
      expect(fetched.map((f) => `${f.queue}/${argOf(f)}`)).toEqual(["default/one:a", "q2/one:b"]);
      expect(owners(after)).toEqual({ "u:a": "t1", "u:b": "t1" });
      expect((after["flow:park:u:a"] as string[]).map((j) => JSON.parse(j).queue)).toEqual(["q2"]);
      expect(after["flow:locks"]).toEqual({ one: "2" });
      expect(after["flow:waiting"]).toEqual({ one: "1" });
      await ack("t1", 2, ok(fetched));
      await drainedClean(tq);
    });

    it("a later chunk of the same call meets a key the call took: it parks", async () => {
      const tq = h.make(jobs, { queues: QUEUES });
      await tq.enqueue("one", ["busy"], { unique: we });
      const { fetched: held } = await begin("t0", 1); // a live tick holds busy
      // oldest first: busy (parks: the first chunk is set aside in part), a, b; then a again, read by a second chunk
      await enqueueQueued(h, tq, [J("one", "busy"), J("one", "a"), J("one", "b"), J("one", "a", "default", "a2")]);
      const { fetched, after } = await begin("t1", 3);
      expect(fetched.map(argOf)).toEqual(["one:a", "one:b"]);
      expect((after["flow:park:u:a"] as string[]).map((j) => JSON.parse(j).jid)).toEqual(["a2"]);
      expect(owners(after)).toEqual({ "u:a": "t1", "u:b": "t1", "u:busy": "t0" });
      expect(after["flow:locks"]).toEqual({ one: "3" });
      expect(after["flow:waiting"]).toEqual({ one: "2" });
      await ack("t1", 2, ok(fetched));
      await ack("t0", 2, ok(held));
      await drainedClean(tq);
    });

    it("keys that need escaping or hashing, and keys that are prefixes of each other, taken at once and freed by one ack", async () => {
      const tq = h.make(jobs, { queues: QUEUES });
      const ks = ["a", "a b", "a|b", "a%7Cb", "ab", "L".repeat(300), "L".repeat(301), 'q"x\\y', "é"];
      await tq.enqueueBulk(ks.map((k) => J("one", k)));
      const { fetched, after } = await begin("t1", 20);
      expect(fetched.map((f) => JSON.parse(f.raw).args[0])).toEqual(ks);
      expect(Object.keys(owners(after))).toHaveLength(ks.length);
      expect(after["flow:locks"]).toEqual({ one: String(ks.length) });
      const { after: acked } = await ack("t1", 2, ok(fetched));
      expect(owners(acked)).toEqual({});
      await drainedClean(tq);
    });
  },
);
