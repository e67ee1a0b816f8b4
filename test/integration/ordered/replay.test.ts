// Every script that ordered jobs add to or change, run twice with the same
// arguments: the second run leaves the state exactly as the first left it
// and answers the same. And a tick that lost its lease cannot ack or
// requeue an id that another tick now holds.
import { describe, expect, it } from "vitest";
import type { OrderedFetched, OrderedOutcome } from "../../../src/ordered/work.js";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { type BeginOptions, beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { snapshot } from "../../helpers/snapshot.js";
import {
  finishArgs,
  housekeepArgs,
  idsOf,
  ORDERED_ENQUEUE_KEYS,
  orderedEnqueueArgs,
  stepArgs as tickStep,
  tickKeys,
} from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const NAMES = ["idx"];
/** The members of a zset snapshot (member, score, member, score, …). */
const members = (zset: unknown) => (zset as string[]).filter((_, i) => i % 2 === 0);

describe.each(adapterCases)("ordered scripts run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-replay");
  const { call, callTwice, readsCallTwice } = scriptCalls(h);
  const ORDERED_KEYS = ORDERED_ENQUEUE_KEYS;
  const enqueueArgs = orderedEnqueueArgs;
  const enqueue = (token: string, items: [string, string, string?][]) =>
    call(protocol.ordered_enqueue, ORDERED_KEYS, enqueueArgs(token, items));
  const beginCall = (o: BeginOptions) => call(protocol.begin, beginKeys(o), beginNamed(o));
  const beginOptions = (tick: string): BeginOptions => ({ tick, leaseMs: LEASE, ordered: NAMES });
  const begin = async (tick: string) => idsOf((await beginCall(beginOptions(tick))).ordered);
  const stepArgs = (tick: string, seq: number, outcomes: OrderedOutcome[]) =>
    tickStep({ tick, leaseMs: LEASE, call: seq, ordered: { names: NAMES, outcomes } });
  const finish = (seq: number, outcomes: OrderedOutcome[]) =>
    finishArgs({ tick: "t1", leaseMs: LEASE, call: seq, ordered: { names: NAMES, outcomes } });

  it("ordered_enqueue: a resent call adds nothing, not even after the id ran", async () => {
    const args = enqueueArgs("tok", [
      ["a", '"x"', "1"],
      ["a", '"y"', "2"],
      ["b", '"x"', ""],
    ]);
    const { after, first } = await callTwice(protocol.ordered_enqueue, ORDERED_KEYS, args);
    expect(first).toBe("111");
    expect(after["o:idx:payloads"]).toBe("3");
    await begin("t1"); // the ids run; the resent call must not bring their payloads back
    const now = await snapshot(h.redis, h.prefix);
    await call(protocol.ordered_enqueue, ORDERED_KEYS, args);
    expect(await snapshot(h.redis, h.prefix)).toEqual(now);
  });

  it("ordered_enqueue: a resent call of payloads sequenced within one ms adds none and moves no score", async () => {
    const args = enqueueArgs(
      "seq",
      Array.from({ length: 50 }, (_, n) => ["a", String(n)] as [string, string]),
    );
    const { after, first } = await callTwice(protocol.ordered_enqueue, ORDERED_KEYS, args);
    expect(first).toBe("1".repeat(50));
    const zset = after["o:idx:p:a"] as string[];
    expect(members(zset)).toEqual(Array.from({ length: 50 }, (_, n) => String(n)));
    const scores = zset.filter((_, i) => i % 2 === 1).map(Number);
    expect(new Set(scores).size).toBe(50);
  });

  it("ordered_enqueue: a resent call over ids a tick holds and new ids (read from the held index) adds nothing", async () => {
    await enqueue("e", [
      ["a", "1"],
      ["b", "1"],
    ]);
    await begin("t1"); // holds a and b
    const args = enqueueArgs("again", [
      ["a", "2"],
      ["b", "2"],
      ["c", "1"],
      ["d", "1"],
    ]);
    const { after, first } = await callTwice(protocol.ordered_enqueue, ORDERED_KEYS, args);
    expect(first).toBe("1111");
    expect(members(after["o:idx:n:a"])).toEqual(["2"]); // behind the runs, not in them
    expect(members(after["o:idx:p:a"])).toEqual(["1"]);
    expect(members(after["o:idx:later"])).toEqual(["a", "b"]);
    expect(members(after["o:idx:ready"])).toEqual(["c", "d"]);
  });

  it("begin: a replay answers the same ids and fences and fetches no other", async () => {
    await enqueue(
      "e",
      Array.from({ length: 12 }, (_, i) => [`id-${i}`, String(i)] as [string, string]),
    );
    const { first, after } = await callTwice(
      protocol.begin,
      beginKeys(beginOptions("t1")),
      beginNamed(beginOptions("t1")),
    );
    const fences = idsOf(first.ordered).map((f) => f.fence);
    expect(fences.every((f, i) => i === 0 || f > fences[i - 1]!)).toBe(true);
    expect(after["o:idx:running"]).toBe("10");
    expect(Object.keys(after["oinproc:t1"] as object)).toHaveLength(10);
    expect(after["o:idx:ready"]).toHaveLength(4); // 2 ids, with scores
    expect(after["o:idx:fence"]).toBe(String(fences[9]));
    // The `held` index lists the ten, and the tick is one that keeps it.
    expect(after["o:idx:held"]).toEqual(
      Object.keys(after["oinproc:t1"] as object)
        .map((f) => f.slice(4))
        .sort(),
    );
    expect(after.oticks).toEqual(["t1"]);
  });

  it("step: successes, retry, dead, requeue, interrupt and a stop in doubt settle once; arrivals behind a run become ready once", async () => {
    await enqueue("e", [
      ["s", "1"],
      ["r", "1"],
      ["d", "1"],
      ["q", "1"],
      ["i", "1"],
      ["l", "1"],
      ["next", "1"],
    ]);
    const held = await begin("t1");
    await enqueue("e2", [
      ["s", "2"],
      ["r", "2"],
      ["d", "2"],
    ]); // arrive during the runs
    const item = (id: string) => held.find((f) => f.id === id)!;
    const outcomes: OrderedOutcome[] = [
      { kind: "succeeded", item: item("s") },
      { kind: "retry", item: item("r"), delayMs: 60_000 },
      { kind: "dead", item: item("d"), entry: '{"id":"d","error_class":"E"', handlerFailed: true },
      { kind: "unstarted", item: item("q") },
      { kind: "interrupted", item: item("i") },
      { kind: "inDoubt", item: item("l") },
    ];
    const { after, first } = await callTwice(protocol.step, tickKeys("t1"), stepArgs("t1", 2, outcomes));
    const fetched = idsOf(first.ordered).map((f) => [f.id, f.payloads, f.resurrections, f.interruptions, f.doubts]);
    // s and d had arrivals (ready again, fresh); q, i and l came back, i's
    // interruption and l's stop in doubt counted once and apart (no tick
    // died); r backs off a minute
    expect(fetched.sort()).toEqual([
      ["d", ["2"], 0, 0, 0],
      ["i", ["1"], 0, 1, 0],
      ["l", ["1"], 0, 0, 1],
      ["q", ["1"], 0, 0, 0],
      ["s", ["2"], 0, 0, 0],
    ]);
    expect(after["o:idx:doubts"]).toEqual({ l: "1" });
    expect(after["o:idx:ready"]).toEqual(["r", expect.any(String)]);
    expect(members(after["o:idx:p:r"])).toEqual(["1", "2"]); // merged with its arrival
    expect(after["o:idx:retries"]).toEqual({ r: "1" });
    expect(JSON.parse((after["o:idx:dead"] as string[])[0]!)).toMatchObject({ id: "d", payloads: [1] });
    expect(after["stat:processed"]).toBe("3");
    expect(after["stat:failed"]).toBe("2");
    expect(after["o:idx:payloads"]).toBe("2"); // r's two, backing off; the fetched ones are running
    expect(after["o:idx:held"]).toEqual(["d", "i", "l", "next", "q", "s"]); // r let go; the rest held (again)
  });

  it("finish: a replay requeues nothing twice, and the tick's registration goes once it holds nothing", async () => {
    await enqueue("e", [
      ["a", "1"],
      ["b", "1"],
    ]);
    const held = await begin("t1");
    const outcomes: OrderedOutcome[] = held.map((item) => ({ kind: "unstarted", item }));
    const { after, first } = await callTwice(protocol.finish, tickKeys("t1"), finish(2, outcomes));
    expect(first).toMatchObject({ left: 0, deadEvicted: 0, orderedReady: 0, missed: [], sentOn: 0 });
    expect(after["o:idx:ready"]).toHaveLength(4);
    expect(after["o:idx:running"]).toBe("0");
    expect(after["oinproc:t1"]).toBeUndefined();
    expect(after.ticks).toBeUndefined();
    expect(after["o:idx:held"]).toBeUndefined();
    expect(after.oticks).toBeUndefined();
  });

  it("housekeep: a replay resurrects no ordered id twice", async () => {
    await enqueue("e", [
      ["a", "1"],
      ["b", "1"],
    ]);
    await begin("dead-tick");
    await enqueue("e2", [["a", "2"]]);
    await h.redis.del(`${h.prefix}tick:dead-tick`, `${h.prefix}resurrector`); // its lease (and its resurrector lock) expired
    await beginCall({ tick: "t2", leaseMs: LEASE, resurrectLimit: 0, batch: 0 });
    const { first, after } = await callTwice(
      protocol.housekeep,
      tickKeys("t2"),
      housekeepArgs({ tick: "t2", call: 2 }),
    );
    expect(first.resurrected).toBe(2);
    expect(members(after["o:idx:p:a"])).toEqual(["1", "2"]);
    // Neither ran alone: no death is counted, both become suspects that run alone next.
    expect(after["o:idx:resurrections"]).toBeUndefined();
    expect(after["o:idx:suspects"]).toEqual({ a: "1", b: "1" });
    expect(after["o:idx:running"]).toBe("0");
    expect(after["oinproc:dead-tick"]).toBeUndefined();
    expect(after.ticks).toEqual({ t2: `0 ${LEASE} default` });
    expect(after["o:idx:held"]).toBeUndefined();
    expect(after.oticks).toBeUndefined(); // t2 serves no ordered name
  });

  it("stats, ordered sizes: reads only", async () => {
    await enqueue("e", [["a", "1"]]);
    const [first, second] = await readsCallTwice(
      protocol.stats,
      { queues: "queues", ticks: "ticks" },
      { flowNames: [], orderedNames: ["idx"], workflowNames: [] },
    );
    expect(first.ordered).toEqual([[1, 0, 1, 0]]);
    expect(second.ordered).toEqual(first.ordered);
  });

  it("a tick that lost its lease can neither ack nor requeue an id another tick holds", async () => {
    await enqueue("e", [["a", "1"]]);
    const [mine] = await begin("t1");
    await h.redis.del(`${h.prefix}tick:t1`, `${h.prefix}resurrector`); // t1 froze past its lease
    await beginCall(beginOptions("t2"));
    const held = await h.redis.hget(`${h.prefix}oinproc:t2`, "idx a");
    expect(held).toMatch(/^t2 \d+ /); // resurrected and fetched again, with a larger fence
    expect(Number(held!.split(" ")[1])).toBeGreaterThan(mine!.fence);
    const before = await snapshot(h.redis, h.prefix);
    for (const kind of ["succeeded", "unstarted", "interrupted"] as const) {
      await call(protocol.step, tickKeys("t1"), stepArgs("t1", 2, [{ kind, item: mine as OrderedFetched }]));
    }
    await call(protocol.step, tickKeys("t1"), stepArgs("t1", 3, [{ kind: "retry", item: mine!, delayMs: 0 }]));
    await call(
      protocol.finish,
      tickKeys("t1"),
      finish(4, [{ kind: "dead", item: mine!, entry: "{", handlerFailed: true }]),
    );
    const after = await snapshot(h.redis, h.prefix);
    delete before.ticks;
    delete after.ticks; // finish may drop t1's registration: it holds nothing
    expect(after).toEqual(before);
  });
});
