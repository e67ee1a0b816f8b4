// maxPayloads: a capped fetch gives a run the lowest CAP payloads of an id and leaves the rest behind
// it in p:ID (`capped` notes the run's count, `later` the fetch's time); arrivals wait in n:ID
// (lib/ordered/fetch-ids.lua). Each
// call that fetches or settles a capped run, run twice with the same arguments, leaves the state as
// one run left it and answers alike; the names come as "NAME CAP" (lib/ordered/state.lua).
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import type { OrderedFetched, OrderedOutcome } from "../../../src/ordered/work.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed, type BeginOptions } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { idsOf, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const CAPPED = ["idx 2"];

describe.each(adapterCases)("capped ordered runs, run twice, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-capped-replay");
  const { call, callTwice } = scriptCalls(h);
  const enqueue = (token: string, items: [string, string, string][]) =>
    call(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs(token, items));
  const options = (tick: string, ordered = CAPPED): BeginOptions => ({ tick, leaseMs: LEASE, ordered, batch: 10 });
  const five = () =>
    enqueue("e", [
      ["a", '"a5"', "5"],
      ["a", '"a1"', "1"],
      ["a", '"a3"', "3"],
      ["a", '"a2"', "2"],
      ["a", '"a4"', "4"],
      ["b", '"b1"', "1"],
    ]);
  const begin = async (tick = "t1") => {
    const begun = await call(protocol.begin, beginKeys(options(tick)), beginNamed(options(tick)));
    return idsOf(begun.ordered);
  };
  const step = (tick: string, callNo: number, outcomes: OrderedOutcome[], batch = 10) =>
    stepArgs({ tick, leaseMs: LEASE, call: callNo, batch, ordered: { names: CAPPED, outcomes } });
  /** A zset's members and scores as `after` holds them: [member, score, ...]. */
  const scoreOf = (zset: unknown, member: string) => {
    const flat = (zset ?? []) as string[];
    const at = flat.indexOf(member);
    return at < 0 ? undefined : Number(flat[at + 1]);
  };
  /** The due a token holds ("TICK FENCE DUE"). */
  const tokenDue = (token: unknown) => Number(String(token).split(" ")[2]);
  const byId = (items: OrderedFetched[], id: string) => items.find((x) => x.id === id)!;

  it("begin: each id's run gets its 2 lowest payloads, the rest wait behind it, counted as waiting", async () => {
    await five();
    const { first, after } = await callTwice(protocol.begin, beginKeys(options("t1")), beginNamed(options("t1")));
    const items = idsOf(first.ordered);
    expect(byId(items, "a").payloads).toEqual(['"a1"', '"a2"']);
    expect(byId(items, "a").scores).toEqual([1, 2]);
    expect(byId(items, "b").payloads).toEqual(['"b1"']);
    expect(after["o:idx:p:a"]).toEqual(['"a1"', "1", '"a2"', "2", '"a3"', "3", '"a4"', "4", '"a5"', "5"]);
    expect(after["o:idx:capped"]).toEqual({ a: "2" });
    expect(Object.keys(after).filter((k) => k.startsWith("o:idx:n:"))).toEqual([]);
    expect((after["o:idx:later"] as string[])[0]).toBe("a");
    expect(after["o:idx:running"]).toBe("2");
    expect(after["o:idx:payloads"]).toBe("3");
    expect(after["o:idx:ready"]).toBeUndefined();
    // It took everything due, but a's rest waits behind its run: the tick asks again with the acks.
    expect(first.drained).toBe(2);
  });

  it("begin: a capped run with its rest behind it, and more due past the batch, says both (drained 3)", async () => {
    await five();
    const one: BeginOptions = { ...options("t1"), batch: 1 };
    const { first, after } = await callTwice(protocol.begin, beginKeys(one), beginNamed(one));
    expect(idsOf(first.ordered).map((x) => x.id)).toEqual(["a"]);
    expect(after["o:idx:capped"]).toEqual({ a: "2" });
    expect((after["o:idx:ready"] as string[])[0]).toBe("b");
    // b is still due: the tick steps on; a's rest is due once its run is acked, which the tick keeps in mind.
    expect(first.drained).toBe(3);
  });

  it("an uncapped name fetches every payload, as before", async () => {
    await five();
    const begun = await call(protocol.begin, beginKeys(options("t1", ["idx"])), beginNamed(options("t1", ["idx"])));
    expect(byId(idsOf(begun.ordered), "a").payloads).toEqual(['"a1"', '"a2"', '"a3"', '"a4"', '"a5"']);
    expect(await h.redis.exists(`${h.prefix}o:idx:n:a`, `${h.prefix}o:idx:later`)).toBe(0);
  });

  it("step: a success cuts the run's payloads only; the id is ready again with the rest and arrivals, in order", async () => {
    await five();
    const items = await begin();
    await enqueue("e2", [["a", '"a0"', "0"]]); // arrives during the run, with a lower score than the rest
    const outcomes = items.map((item) => ({ kind: "succeeded" as const, item }));
    const { first, after } = await callTwice(protocol.step, tickKeys("t1"), step("t1", 2, outcomes));
    const again = idsOf(first.ordered);
    // The same step fetched "a" again: its next run is the lowest 2 of what waited behind the first.
    expect(again.map((x) => [x.id, x.payloads])).toEqual([["a", ['"a0"', '"a3"']]]);
    expect(again[0]!.fence).toBeGreaterThan(byId(items, "a").fence);
    expect(after["o:idx:p:a"]).toEqual(['"a0"', "0", '"a3"', "3", '"a4"', "4", '"a5"', "5"]);
    expect(after["o:idx:n:a"]).toBeUndefined();
    expect(after["o:idx:capped"]).toEqual({ a: "2" });
    expect(after["o:idx:p:b"]).toBeUndefined();
    expect(after["o:idx:running"]).toBe("1");
    expect(after["o:idx:payloads"]).toBe("2");
    expect(after["stat:processed"]).toBe("2");
    // a's rest still waits behind its new run: the tick steps again once it ran.
    expect(first.drained).toBe(2);
  });

  it("step: a success with its rest behind and nothing arrived is continued in place, as an ack then a fetch leave it", async () => {
    await five();
    const items = await begin();
    const a = byId(items, "a");
    const beganDue = scoreOf((await h.redis.zrange(`${h.prefix}o:idx:later`, "0", "-1", "WITHSCORES")) as unknown, "a");
    const outcomes = items.map((item) => ({ kind: "succeeded" as const, item }));
    const { first, after } = await callTwice(protocol.step, tickKeys("t1"), step("t1", 2, outcomes));
    const again = idsOf(first.ordered);
    expect(again.map((x) => [x.id, x.payloads, x.scores])).toEqual([["a", ['"a3"', '"a4"'], [3, 4]]]);
    expect(again[0]!.fence).toBeGreaterThan(a.fence);
    expect(after["o:idx:p:a"]).toEqual(['"a3"', "3", '"a4"', "4", '"a5"', "5"]);
    expect(after["o:idx:capped"]).toEqual({ a: "2" });
    // Its token is the new run's, due when the ack made it due (its first fetch's time); its rest waits
    // behind it, due at this fetch's time.
    const token = (after["oinproc:t1"] as Record<string, string>)["idx a"];
    expect(token?.startsWith(`t1 ${again[0]!.fence} `)).toBe(true);
    expect(tokenDue(token)).toBe(beganDue);
    expect(scoreOf(after["o:idx:later"], "a")).toBeGreaterThanOrEqual(beganDue!);
    expect(Object.keys(after["oinproc:t1"] as object)).toEqual(["idx a"]);
    expect(after["o:idx:held"]).toEqual(["a"]);
    expect(after["o:idx:running"]).toBe("1");
    expect(after["o:idx:payloads"]).toBe("1");
    expect(after["o:idx:ready"]).toBeUndefined();
    expect(after["stat:processed"]).toBe("2");
    expect(first.drained).toBe(2);
  });

  it("step: a continued run never passes an id due before it, and goes back to ready at its due", async () => {
    await five();
    const one: BeginOptions = { ...options("t1"), batch: 1 };
    const begun = await call(protocol.begin, beginKeys(one), beginNamed(one));
    const [a] = idsOf(begun.ordered);
    expect(a!.id).toBe("a");
    const bDue = Number(await h.redis.zscore(`${h.prefix}o:idx:ready`, "b"));
    const aDue = Number(await h.redis.zscore(`${h.prefix}o:idx:later`, "a"));
    expect(aDue).toBeGreaterThanOrEqual(bDue);
    const { first, after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      step("t1", 2, [{ kind: "succeeded", item: a! }], 1),
    );
    expect(idsOf(first.ordered).map((x) => x.id)).toEqual(["b"]);
    expect(scoreOf(after["o:idx:ready"], "a")).toBe(aDue);
    expect(scoreOf(after["o:idx:later"], "a")).toBeUndefined();
    expect(after["o:idx:capped"]).toBeUndefined();
    expect(after["o:idx:held"]).toEqual(["b"]);
    expect(Object.keys(after["oinproc:t1"] as object)).toEqual(["idx b"]);
    expect(after["o:idx:running"]).toBe("1");
    expect(after["o:idx:p:a"]).toEqual(['"a3"', "3", '"a4"', "4", '"a5"', "5"]);
    expect(after["o:idx:payloads"]).toBe("3");
  });

  it("step: continued runs past the batch all go back to ready, which takes them by name, as after an ack", async () => {
    await enqueue("e", [
      ["a", '"a1"', "1"],
      ["a", '"a2"', "2"],
      ["a", '"a3"', "3"],
      ["b", '"b1"', "1"],
      ["b", '"b2"', "2"],
      ["b", '"b3"', "3"],
    ]);
    const items = await begin();
    expect(items.map((x) => x.id).sort()).toEqual(["a", "b"]);
    const dues = await h.redis.zrange(`${h.prefix}o:idx:later`, "0", "-1", "WITHSCORES");
    // Acked b first: the batch's one id is still a, the first of its due by name.
    const outcomes = [byId(items, "b"), byId(items, "a")].map((item) => ({ kind: "succeeded" as const, item }));
    const { first, after } = await callTwice(protocol.step, tickKeys("t1"), step("t1", 2, outcomes, 1));
    const [taken] = idsOf(first.ordered);
    const left = "b";
    expect(taken!.id).toBe("a");
    expect(idsOf(first.ordered)).toHaveLength(1);
    expect(taken!.payloads).toEqual([`"${taken!.id}3"`]);
    expect(scoreOf(after["o:idx:ready"], left)).toBe(scoreOf(dues, left));
    // The continued id took its last payload: nothing waits behind its run.
    expect(after["o:idx:later"]).toBeUndefined();
    expect(after["o:idx:capped"]).toBeUndefined();
    expect(after["o:idx:held"]).toEqual([taken!.id]);
    expect(Object.keys(after["oinproc:t1"] as object)).toEqual([`idx ${taken!.id}`]);
    expect(after["o:idx:running"]).toBe("1");
    expect(after[`o:idx:p:${left}`]).toEqual([`"${left}3"`, "3"]);
    expect(after["o:idx:payloads"]).toBe("1");
    expect(first.drained).toBeUndefined();
  });

  it("step: a retry puts the run's payloads back with the rest, merged in score order", async () => {
    await five();
    const items = await begin();
    const outcomes: OrderedOutcome[] = [{ kind: "retry", item: byId(items, "a"), delayMs: 60_000 }];
    const { first, after } = await callTwice(protocol.step, tickKeys("t1"), step("t1", 2, outcomes));
    expect(after["o:idx:p:a"]).toEqual(['"a1"', "1", '"a2"', "2", '"a3"', "3", '"a4"', "4", '"a5"', "5"]);
    // Backing off, a is not due: the step took nothing and nothing waits behind a run of this one.
    expect(first.drained).toBeUndefined();
    expect(after["o:idx:n:a"]).toBeUndefined();
    expect(after["o:idx:later"]).toBeUndefined();
    expect(after["o:idx:capped"]).toBeUndefined();
    expect((after["o:idx:ready"] as string[])[0]).toBe("a");
    expect(after["o:idx:retries"]).toEqual({ a: "1" });
    expect(after["o:idx:running"]).toBe("1"); // b still runs
    expect(after["o:idx:payloads"]).toBe("5");
  });

  it("step: a dead run's entry holds only its payloads; the rest are the id's next run", async () => {
    await five();
    const items = await begin();
    const a = byId(items, "a");
    const entry = `{"name":"idx","id":"a","fence":${a.fence}`;
    const outcomes: OrderedOutcome[] = [{ kind: "dead", item: a, entry, handlerFailed: true }];
    const { first, after } = await callTwice(protocol.step, tickKeys("t1"), step("t1", 2, outcomes));
    expect((after["o:idx:dead"] as string[])[0]).toBe(`${entry},"payloads":["a1","a2"],"scores":[1,2]}`);
    expect(idsOf(first.ordered).map((x) => [x.id, x.payloads])).toEqual([["a", ['"a3"', '"a4"']]]);
    expect(after["o:idx:p:a"]).toEqual(['"a3"', "3", '"a4"', "4", '"a5"', "5"]);
    expect(after["o:idx:capped"]).toEqual({ a: "2" });
    expect(after["o:idx:payloads"]).toBe("1");
  });

  it("step: a put-back (not started) returns every payload, keeping the id's place", async () => {
    await five();
    const items = await begin();
    const due = byId(items, "a");
    const outcomes: OrderedOutcome[] = [{ kind: "unstarted", item: due }];
    const { first, after } = await callTwice(protocol.step, tickKeys("t1"), step("t1", 2, outcomes));
    // Back in ready at its first due, and the same step takes it again: its lowest 2 once more.
    expect(idsOf(first.ordered).map((x) => [x.id, x.payloads])).toEqual([["a", ['"a1"', '"a2"']]]);
    expect(after["o:idx:p:a"]).toEqual(['"a1"', "1", '"a2"', "2", '"a3"', "3", '"a4"', "4", '"a5"', "5"]);
    expect(after["o:idx:capped"]).toEqual({ a: "2" });
    expect(after["o:idx:payloads"]).toBe("3");
    expect(after["o:idx:running"]).toBe("2");
  });
});
