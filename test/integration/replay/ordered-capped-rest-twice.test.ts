// A capped run's rest stays behind it in p:ID (`capped` notes the run's count: lib/ordered/fetch-ids.lua).
// The scripts that meet such a run other than by its ack, run twice with the same arguments: a cancel
// takes the rest with what arrived behind the run, the ack of the marked run records the run alone, and
// a resurrect puts the run back with its rest; each leaves `payloads` equal to what waits.
import { describe, expect, it } from "vitest";
import type { OrderedOutcome } from "../../../src/ordered/work.js";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { type BeginOptions, beginKeys, beginNamed } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import {
  housekeepArgs,
  idsOf,
  ORDERED_ENQUEUE_KEYS,
  orderedEnqueueArgs,
  stepArgs,
  tickKeys,
} from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const CAPPED = ["idx 1"];
const TICKS = { ticks: "ticks" };
const members = (zset: unknown) => ((zset ?? []) as string[]).filter((_, i) => i % 2 === 0);
const records = (zset: unknown) =>
  members(zset).map((t) => JSON.parse(t) as { jid: string; args: [string, unknown[]]; tickq_cancelled_from: string });

describe.each(adapterCases)("a capped run's rest in place, run twice, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-capped-rest");
  const { call, callTwice } = scriptCalls(h);
  const enqueue = (token: string, items: [string, string, string][]) =>
    call(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs(token, items));
  const three = () =>
    enqueue("e", [
      ["a", '"a1"', "1"],
      ["a", '"a2"', "2"],
      ["a", '"a3"', "3"],
    ]);
  const options = (tick: string, batch = 10): BeginOptions => ({ tick, leaseMs: LEASE, ordered: CAPPED, batch });
  const begin = async (tick: string) =>
    idsOf((await call(protocol.begin, beginKeys(options(tick)), beginNamed(options(tick)))).ordered);
  const cancelArgs = (token: string) => ({
    token,
    keepMs: 60_000,
    name: "idx",
    id: "a",
    tick: "",
    fence: "",
    records: "1",
  });

  it("ordered_cancel.lua: a capped run is marked once; its rest and the arrivals behind it are recorded cancelled, the run left alone in p:ID", async () => {
    await three();
    const [run] = await begin("t1");
    expect(run!.payloads).toEqual(['"a1"']);
    await enqueue("e2", [["a", '"late"', "9"]]);
    const { first, after } = await callTwice(protocol.ordered_cancel, TICKS, cancelArgs("c1"));
    expect(first.split("\n")[0]).toBe(`marked t1 ${run!.fence} 3 o-${run!.fence}-idx c1`);
    expect(records(after.cancelled).map((r) => [r.jid, r.args, r.tickq_cancelled_from])).toEqual([
      ["c1", ["a", ["a2", "a3", "late"]], "queued"],
    ]);
    expect(after["o:idx:p:a"]).toEqual(['"a1"', "1"]);
    expect(after["o:idx:capped"]).toBeUndefined();
    expect(after["o:idx:later"]).toBeUndefined();
    expect(after["o:idx:n:a"]).toBeUndefined();
    expect(after["o:idx:payloads"]).toBe("0");
  });

  it("step: the marked capped run acked as succeeded is recorded cancelled with its payload alone; nothing waits", async () => {
    await three();
    const [run] = await begin("t1");
    await call(protocol.ordered_cancel, TICKS, cancelArgs("c1"));
    const outcomes: OrderedOutcome[] = [{ kind: "succeeded", item: run! }];
    const { first, after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, batch: 10, ordered: { names: CAPPED, outcomes } }),
    );
    expect(first.orderedCancelled).toEqual([`idx ${run!.fence}`]);
    expect(idsOf(first.ordered)).toEqual([]);
    expect(
      records(after.cancelled)
        .map((r) => [r.args, r.tickq_cancelled_from])
        .sort(),
    ).toEqual([
      [["a", ["a1"]], "running"],
      [["a", ["a2", "a3"]], "queued"],
    ]);
    expect(after["o:idx:p:a"]).toBeUndefined();
    expect(after["o:idx:ready"]).toBeUndefined();
    expect(after["o:idx:running"]).toBe("0");
    expect(after["o:idx:payloads"]).toBe("0");
  });

  it("step: a capped run marked by a cancel that left its rest in p:ID (an older version's) ends with it, and the count follows", async () => {
    await three();
    const [run] = await begin("t1");
    // What an older cancel wrote: the mark alone; the rest stays behind the run in p:ID, counted waiting.
    await h.redis.hset(`${h.prefix}cancel:t1`, `o idx ${run!.fence} a`, "0");
    await h.redis.hset(`${h.prefix}tick:t1`, "cancels", "1");
    expect(await h.redis.get(`${h.prefix}o:idx:payloads`)).toBe("2");
    const outcomes: OrderedOutcome[] = [{ kind: "succeeded", item: run! }];
    const { first, after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, batch: 10, ordered: { names: CAPPED, outcomes } }),
    );
    expect(first.orderedCancelled).toEqual([`idx ${run!.fence}`]);
    expect(records(after.cancelled).map((r) => r.args)).toEqual([["a", ["a1", "a2", "a3"]]]);
    expect(after["o:idx:p:a"]).toBeUndefined();
    expect(after["o:idx:capped"]).toBeUndefined();
    expect(after["o:idx:payloads"]).toBe("0");
  });

  it("housekeep: a dead tick's capped run goes back with its rest and arrivals once, counted once", async () => {
    await three();
    await begin("dead-tick");
    await enqueue("e2", [["a", '"a4"', "4"]]);
    expect(await h.redis.get(`${h.prefix}o:idx:payloads`)).toBe("3");
    await h.redis.del(`${h.prefix}tick:dead-tick`, `${h.prefix}resurrector`);
    await call(
      protocol.begin,
      beginKeys({ ...options("t2", 0), resurrectLimit: 0 }),
      beginNamed({ ...options("t2", 0), resurrectLimit: 0 }),
    );
    const { first, after } = await callTwice(
      protocol.housekeep,
      tickKeys("t2"),
      housekeepArgs({ tick: "t2", call: 2 }),
    );
    expect(first.resurrected).toBe(1);
    expect(members(after["o:idx:p:a"])).toEqual(['"a1"', '"a2"', '"a3"', '"a4"']);
    expect(members(after["o:idx:ready"])).toEqual(["a"]);
    expect(after["o:idx:capped"]).toBeUndefined();
    expect(after["o:idx:later"]).toBeUndefined();
    expect(after["o:idx:n:a"]).toBeUndefined();
    expect(after["o:idx:payloads"]).toBe("4");
    expect(after["o:idx:running"]).toBe("0");
  });

  it("begin: 20 capped runs with a rest each are noted in `later` and `capped` made a skiplist and a hashtable, with no member of their own", async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `id-${String(i).padStart(2, "0")}`);
    await enqueue(
      "e",
      ids.flatMap((id): [string, string, string][] => [
        [id, '"one"', "1"],
        [id, '"two"', "2"],
      ]),
    );
    const o = options("t1", 100);
    const { first, after } = await callTwice(protocol.begin, beginKeys(o), beginNamed(o));
    expect(idsOf(first.ordered).map((x) => x.payloads)).toEqual(ids.map(() => ['"one"']));
    expect(members(after["o:idx:later"])).toEqual(ids);
    expect(after["o:idx:capped"]).toEqual(Object.fromEntries(ids.map((id) => [id, "1"])));
    expect(await h.redis.object("ENCODING", `${h.prefix}o:idx:later`)).toBe("skiplist");
    expect(await h.redis.object("ENCODING", `${h.prefix}o:idx:capped`)).toBe("hashtable");
    expect(after["o:idx:payloads"]).toBe("20");
  });

  it("step: a retry of a capped run puts back the run with its rest, counted once; an arrival identical to one of the rest is one payload", async () => {
    await three();
    const [run] = await begin("t1");
    await enqueue("e2", [["a", '"a3"', "0.5"]]);
    const outcomes: OrderedOutcome[] = [{ kind: "retry", item: run!, delayMs: 60_000 }];
    const { after } = await callTwice(
      protocol.step,
      tickKeys("t1"),
      stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, batch: 10, ordered: { names: CAPPED, outcomes } }),
    );
    expect(after["o:idx:p:a"]).toEqual(['"a3"', "0.5", '"a1"', "1", '"a2"', "2"]);
    expect(after["o:idx:payloads"]).toBe("3");
    expect(after["o:idx:capped"]).toBeUndefined();
  });
});
