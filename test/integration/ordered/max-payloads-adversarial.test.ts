// maxPayloads against states and neighbours the main suite does not build: an n:ID already there when a
// capped fetch leaves an id's rest behind its run in p:ID (merged at its ack), an enqueue during a capped
// run of a payload identical to one waiting behind it, and a tick without the cap (a rolling deploy)
// settling and fetching next to one with it. Each asserts what no cap must change: every payload runs
// once, in score order, and the counts (`payloads`, `running`) match the keys.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import type { OrderedFetched, OrderedOutcome } from "../../../src/ordered/work.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed, type BeginOptions } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { idsOf, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs, stepArgs, tickKeys } from "../../helpers/tick-calls.js";

const LEASE = 5_000;

describe.each(adapterCases)("capped ordered runs against odd states, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-capped-adversarial");
  const { call } = scriptCalls(h);
  const enqueue = (token: string, items: [string, string, string][]) =>
    call(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs(token, items));
  const options = (tick: string, ordered: string[]): BeginOptions => ({ tick, leaseMs: LEASE, ordered, batch: 10 });
  const begin = async (tick: string, ordered: string[]) =>
    idsOf((await call(protocol.begin, beginKeys(options(tick, ordered)), beginNamed(options(tick, ordered)))).ordered);
  const step = async (tick: string, callNo: number, names: string[], outcomes: OrderedOutcome[]) =>
    idsOf(
      (
        await call(
          protocol.step,
          tickKeys(tick),
          stepArgs({ tick, leaseMs: LEASE, call: callNo, batch: 10, ordered: { names, outcomes } }),
        )
      ).ordered,
    );
  const zset = async (key: string) => {
    const flat = await h.redis.zrange(h.prefix + key, "0", "-1", "WITHSCORES");
    const out: [string, number][] = [];
    for (let k = 0; k < flat.length; k += 2) out.push([flat[k]!, Number(flat[k + 1])]);
    return out;
  };
  const ok = (items: OrderedFetched[]): OrderedOutcome[] => items.map((item) => ({ kind: "succeeded", item }));

  it("a capped fetch that finds n:ID already there keeps every payload once: the run's first, then n:ID's merged with the rest", async () => {
    await enqueue("e", [
      ["a", '"a2"', "2"],
      ["a", '"a3"', "3"],
      ["a", '"a4"', "4"],
    ]);
    // Left by anything else (the ack merges it with the rest): a lower score than all of p:a.
    await h.redis.zadd(`${h.prefix}o:idx:n:a`, 1, '"a1"');
    const items = await begin("t1", ["idx 1"]);
    expect(items.map((x) => [x.id, x.payloads])).toEqual([["a", ['"a2"']]]);
    // The run's payload is not run again, and "a1" is not dropped: it runs next, then the rest.
    const next = await step("t1", 2, ["idx 1"], ok(items));
    expect(next.map((x) => x.payloads)).toEqual([['"a1"']]);
    const then = await step("t1", 3, ["idx 1"], ok(next));
    expect(then.map((x) => x.payloads)).toEqual([['"a3"']]);
    expect(await zset("o:idx:p:a")).toEqual([
      ['"a3"', 3],
      ['"a4"', 4],
    ]);
  });

  it("an enqueue during a capped run of a payload identical to one behind it is stored once, at its lowest score", async () => {
    await enqueue("e", [
      ["a", '"a1"', "1"],
      ["a", '"a2"', "2"],
      ["a", '"a3"', "3"],
    ]);
    const items = await begin("t1", ["idx 1"]);
    expect(items.map((x) => x.payloads)).toEqual([['"a1"']]);
    const added = await enqueue("e2", [
      ["a", '"a3"', "0.5"],
      ["a", '"a2"', "9"],
    ]);
    // Both wait behind the run (n:ID) until it ends: the run's own payloads stay its lowest in p:ID.
    expect(added).toBe("11");
    expect(await zset("o:idx:p:a")).toEqual([
      ['"a1"', 1],
      ['"a2"', 2],
      ['"a3"', 3],
    ]);
    // The next runs: "a3" (now lowest), then "a2", each once.
    const next = await step("t1", 2, ["idx 1"], ok(items));
    expect(await h.redis.get(`${h.prefix}o:idx:payloads`)).toBe("1");
    expect(next.map((x) => x.payloads)).toEqual([['"a3"']]);
    const last = await step("t1", 3, ["idx 1"], ok(next));
    expect(last.map((x) => x.payloads)).toEqual([['"a2"']]);
    await step("t1", 4, ["idx 1"], ok(last));
    expect(await h.redis.get(`${h.prefix}o:idx:payloads`)).toBe("0");
    expect(await h.redis.get(`${h.prefix}o:idx:running`)).toBe("0");
  });

  it("maxPayloads 2 over equal, negative and extreme scores, on an id with spaces: each payload once, in (score, payload) order, scores exact", async () => {
    const id = " a  b ";
    const scores = ["-1e308", "-0.5", "0.30000000000000004", "5", "5", "5", "1e308", "inf"];
    const payloads = ['"n"', '"m"', '"l"', '"c"', '"a"', '"b"', '"z"', '"y"'];
    await enqueue(
      "e",
      payloads.map((payload, k): [string, string, string] => [id, payload, scores[k]!]),
    );
    const seen: [string, number][] = [];
    let items = await begin("t1", ["idx 2"]);
    for (let callNo = 2; items.length > 0 && callNo < 20; callNo++) {
      for (const item of items) {
        expect(item.id).toBe(id);
        for (const [k, p] of item.payloads.entries()) seen.push([p, item.scores[k]!]);
      }
      items = await step("t1", callNo, ["idx 2"], ok(items));
    }
    expect(seen).toEqual([
      ['"n"', -1e308],
      ['"m"', -0.5],
      ['"l"', 0.30000000000000004],
      ['"a"', 5],
      ['"b"', 5],
      ['"c"', 5],
      ['"z"', 1e308],
      ['"y"', Number.POSITIVE_INFINITY],
    ]);
    expect(await h.redis.get(`${h.prefix}o:idx:payloads`)).toBe("0");
  });

  it("a tick without the cap (rolling deploy) fetches everything a capped run left behind, once, in order", async () => {
    await enqueue("e", [
      ["a", '"a1"', "1"],
      ["a", '"a2"', "2"],
      ["a", '"a3"', "3"],
      ["b", '"b1"', "1"],
    ]);
    const capped = await begin("t1", ["idx 1"]);
    expect(capped.map((x) => [x.id, x.payloads])).toEqual([
      ["a", ['"a1"']],
      ["b", ['"b1"']],
    ]);
    // The uncapped tick starts while "a" runs capped: nothing of "a" is due for it.
    expect(await begin("t2", ["idx"])).toEqual([]);
    await enqueue("e2", [["a", '"a4"', "4"]]);
    // t1 settles (and fetches nothing more: it asks for no batch of "a" before t2 does).
    await call(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, batch: 0, ordered: { names: ["idx 1"], outcomes: ok(capped) } }),
    );
    const uncapped = await step("t2", 2, ["idx"], []);
    expect(uncapped.map((x) => [x.id, x.payloads])).toEqual([["a", ['"a2"', '"a3"', '"a4"']]]);
    await step("t2", 3, ["idx"], ok(uncapped));
    expect(await h.redis.get(`${h.prefix}o:idx:payloads`)).toBe("0");
    expect(await h.redis.get(`${h.prefix}o:idx:running`)).toBe("0");
    expect(await h.redis.exists(`${h.prefix}o:idx:later`, `${h.prefix}o:idx:n:a`, `${h.prefix}o:idx:p:a`)).toBe(0);
  });
});

describe.each(adapterCases)("a large maxPayloads, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-capped-large");
  const { call } = scriptCalls(h);
  const options = (ordered: string[]): BeginOptions => ({ tick: "t1", leaseMs: LEASE, ordered, batch: 10 });

  it("maxPayloads 5000 over an id with 5001 payloads: the run gets 5000, the last waits behind it", async () => {
    const items = Array.from({ length: 5001 }, (_, i): [string, string, string] => ["a", `${i}`, `${i}`]);
    await call(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs("e", items));
    const begun = await call(protocol.begin, beginKeys(options(["idx 5000"])), beginNamed(options(["idx 5000"])));
    const run = idsOf(begun.ordered);
    expect(run.map((x) => [x.id, x.payloads.length, x.payloads[4999]])).toEqual([["a", 5000, "4999"]]);
    expect(await h.redis.hget(`${h.prefix}o:idx:capped`, "a")).toBe("5000");
    expect(await h.redis.get(`${h.prefix}o:idx:payloads`)).toBe("1");
    // Its ack cuts the run's 5000 off p:ID; the last is the id's next run.
    const next = idsOf(
      (
        await call(
          protocol.step,
          tickKeys("t1"),
          stepArgs({
            tick: "t1",
            leaseMs: LEASE,
            call: 2,
            batch: 10,
            ordered: { names: ["idx 5000"], outcomes: run.map((item) => ({ kind: "succeeded", item })) },
          }),
        )
      ).ordered,
    );
    expect(next.map((x) => [x.id, x.payloads])).toEqual([["a", ["5000"]]]);
  });
});
