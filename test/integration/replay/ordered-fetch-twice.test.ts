// begin and step share a batch with plain jobs (up to half ordered ids, plain jobs, then ordered ids
// for the rest): the due ids are read first and taken in one take, so a name comes back as one
// group, its fences consecutive (lib/ordered/fetch-ids.lua fetch_mixed; shared with plain jobs:
// ordered-shared-batch-twice.test.ts). A "second look" below is the part past the first half. Run twice with the same arguments, the call answers the
// same group and leaves the state as the first run left it; the group's payload counts and per-id
// counts cover the ids of both looks.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed, type BeginOptions } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import {
  finishArgs,
  idsOf,
  ORDERED_ENQUEUE_KEYS,
  orderedEnqueueArgs,
  stepArgs,
  tickKeys,
} from "../../helpers/tick-calls.js";

const LEASE = 5_000;
const NAMES = ["idx"];

describe.each(adapterCases)("an ordered fetch in two looks, run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-fetch-replay");
  const { call, callTwice } = scriptCalls(h);
  const enqueue = (token: string, items: [string, string, string][]) =>
    call(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs(token, items));
  const options = (tick: string): BeginOptions => ({ tick, leaseMs: LEASE, ordered: NAMES, batch: 10 });

  it("begin: one group for the name, ten ids with consecutive fences, counts over both looks", async () => {
    // All due in one ms, the ids come in their names' order: id-00 … id-11; id-07 (second look) has two payloads.
    await enqueue(
      "e",
      Array.from(
        { length: 12 },
        (_, i) => [`id-${String(i).padStart(2, "0")}`, `"p${i}"`, String(i + 1)] as [string, string, string],
      ),
    );
    await enqueue("e2", [["id-07", '"q7"', "100"]]);
    // id-08 (second look) failed once before: the failures list covers every id of the group.
    await h.redis.hset(`${h.prefix}o:idx:retries`, "id-08", "1");
    const { first, after } = await callTwice(protocol.begin, beginKeys(options("t1")), beginNamed(options("t1")));
    expect(first.ordered).toHaveLength(1);
    const group = first.ordered![0]!;
    expect(group.ids).toEqual(Array.from({ length: 10 }, (_, i) => `id-${String(i).padStart(2, "0")}`));
    expect(group.counts).toEqual([1, 1, 1, 1, 1, 1, 1, 2, 1, 1]);
    expect(group.failures).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, 0]);
    const items = idsOf(first.ordered);
    expect(items.map((x) => x.fence)).toEqual(items.map((_, i) => group.first + i));
    expect(items[7]!.payloads).toEqual(['"p7"', '"q7"']);
    expect(items[8]).toMatchObject({ id: "id-08", failures: 1, payloads: ['"p8"'] });
    // Each id's token names its own fence; the counter is at the last one.
    for (const x of items)
      expect((after["oinproc:t1"] as Record<string, string>)[`idx ${x.id}`]).toMatch(new RegExp(`^t1 ${x.fence} `));
    expect(after["o:idx:fence"]).toBe(String(group.first + 9));
    expect(after["o:idx:running"]).toBe("10");
    expect(after["o:idx:payloads"]).toBe("2"); // id-10 and id-11 still wait
  });

  it("step: a fetch in two looks is one group too, its fences above begin's", async () => {
    await enqueue(
      "e",
      Array.from(
        { length: 14 },
        (_, i) => [`id-${String(i).padStart(2, "0")}`, `"p${i}"`, String(i + 1)] as [string, string, string],
      ),
    );
    const begun = await call(protocol.begin, beginKeys(options("t1")), beginNamed(options("t1")));
    const before = idsOf(begun.ordered);
    expect(before).toHaveLength(10);
    const args = stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, batch: 4, ordered: { names: NAMES, outcomes: [] } });
    const { first } = await callTwice(protocol.step, tickKeys("t1"), args);
    expect(first.ordered).toHaveLength(1);
    const items = idsOf(first.ordered);
    expect(items.map((x) => x.id)).toEqual(["id-10", "id-11", "id-12", "id-13"]);
    // Consecutive within the group, above every fence begin handed out (and never below Redis' time).
    expect(items.map((x) => x.fence)).toEqual(items.map((_, i) => first.ordered![0]!.first + i));
    expect(items[0]!.fence).toBeGreaterThan(before[9]!.fence);
  });

  // A fetch reads one due id past what it takes: one that filled its batch says whether it left any.
  const dueIds = (n: number) =>
    Array.from(
      { length: n },
      (_, i) => [`id-${String(i).padStart(2, "0")}`, `"p${i}"`, String(i + 1)] as [string, string, string],
    );

  it("begin: a full batch that took every due id says drained, and so does its replay", async () => {
    await enqueue("e", dueIds(10));
    const { first, after } = await callTwice(protocol.begin, beginKeys(options("t1")), beginNamed(options("t1")));
    expect(idsOf(first.ordered)).toHaveLength(10);
    expect(first.drained).toBe(1);
    expect(first.testClock).toBe(0);
    expect(after["o:idx:ready"]).toBeUndefined();
  });

  it("begin: a full batch with an id still due says nothing of the kind", async () => {
    await enqueue("e", dueIds(11));
    const { first, after } = await callTwice(protocol.begin, beginKeys(options("t1")), beginNamed(options("t1")));
    expect(idsOf(first.ordered)).toHaveLength(10);
    expect(first.drained).toBeUndefined();
    expect((after["o:idx:ready"] as string[])[0]).toBe("id-10");
  });

  it("step: a full fetch that took every due id says drained, and so does its replay", async () => {
    await enqueue("e", dueIds(14));
    const begun = await call(protocol.begin, beginKeys(options("t1")), beginNamed(options("t1")));
    expect(begun.drained).toBeUndefined();
    const args = stepArgs({ tick: "t1", leaseMs: LEASE, call: 2, batch: 4, ordered: { names: NAMES, outcomes: [] } });
    const { first } = await callTwice(protocol.step, tickKeys("t1"), args);
    expect(idsOf(first.ordered).map((x) => x.id)).toEqual(["id-10", "id-11", "id-12", "id-13"]);
    expect(first.drained).toBe(1);
    expect(first).toMatchObject({ missed: [], cancelled: [], cancels: [], orderedCancelled: [], expired: [] });
  });

  // The dues are read as two scores when the first and the last id taken share one; ids of different
  // dues are read one score each. Fences are made as text from their high digits and their last three.
  it("begin: ids of different dues each keep their own in their token, fences crossing a thousand, run twice", async () => {
    await enqueue("e", dueIds(6));
    // Due at different times in the past: id-00 … id-05 at 1000, 1000, 2000, 3000, 3000, 4000 ms.
    await h.redis.zadd(`${h.prefix}o:idx:ready`, "XX", 1000, "id-00", 1000, "id-01", 2000, "id-02", 3000, "id-03");
    await h.redis.zadd(`${h.prefix}o:idx:ready`, "XX", 3000, "id-04", 4000, "id-05");
    // The counter just below a thousand: the fences run …998, …999, …000, …001.
    await h.redis.set(`${h.prefix}o:idx:fence`, "5000000000000997");
    const six = { ...options("t1"), batch: 6 };
    const { first, after } = await callTwice(protocol.begin, beginKeys(six), beginNamed(six));
    const items = idsOf(first.ordered);
    expect(items.map((x) => x.id)).toEqual(["id-00", "id-01", "id-02", "id-03", "id-04", "id-05"]);
    const tokens = after["oinproc:t1"] as Record<string, string>;
    const fences = ["5000000000000998", "5000000000000999", "5000000000001000", "5000000000001001"];
    for (const [k, due] of ["1000", "1000", "2000", "3000", "3000", "4000"].entries()) {
      expect(String(items[k]!.fence)).toBe(k < 4 ? fences[k] : String(5000000000001000 + k - 2));
      expect(tokens[`idx ${items[k]!.id}`]).toBe(`t1 ${items[k]!.fence} ${due}`);
    }
    expect(after["o:idx:fence"]).toBe("5000000000001003");
  });

  it("begin: ids that share a due keep it in their tokens, the second look's too, run twice", async () => {
    await enqueue("e", dueIds(10));
    await h.redis.zadd(`${h.prefix}o:idx:ready`, "XX", ...dueIds(10).flatMap(([id]) => [5000, id]));
    const { first, after } = await callTwice(protocol.begin, beginKeys(options("t1")), beginNamed(options("t1")));
    const items = idsOf(first.ordered);
    expect(items).toHaveLength(10);
    const tokens = after["oinproc:t1"] as Record<string, string>;
    for (const x of items) expect(tokens[`idx ${x.id}`]).toBe(`t1 ${x.fence} 5000`);
  });

  // An ack of many ids reads the tick's small token hash whole (lib/ordered/ack-ids.lua's tokens_of).
  it("finish: an ack of 20 ids, read from the whole token hash, settles them once, run twice", async () => {
    await enqueue("e", dueIds(22));
    const begin20 = { ...options("t1"), batch: 22 };
    const begun = await call(protocol.begin, beginKeys(begin20), beginNamed(begin20));
    const fetched = idsOf(begun.ordered);
    expect(fetched).toHaveLength(22);
    // 20 succeeded; id-20 and id-21 are still held (their tokens stay).
    const outcomes = fetched.slice(0, 20).map((item) => ({ kind: "succeeded" as const, item }));
    const args = finishArgs({ tick: "t1", leaseMs: LEASE, call: 2, ordered: { names: NAMES, outcomes } });
    const { after } = await callTwice(protocol.finish, tickKeys("t1"), args);
    expect(Object.keys(after["oinproc:t1"] as Record<string, string>).sort()).toEqual(["idx id-20", "idx id-21"]);
    expect(after["o:idx:running"]).toBe("2");
    expect(after["stat:processed"]).toBe("20");
    for (let i = 0; i < 20; i++) expect(after[`o:idx:p:id-${String(i).padStart(2, "0")}`]).toBeUndefined();
  });

  // A tick's first take of 16 ids or more makes its token hash a hashtable (a long field set beside the
  // tokens and deleted in the same call): HSET and the ack's reads then walk no listpack.
  it("begin: a first take of 40 ids leaves the same tokens in a hashtable, run twice; finish acks them all, run twice", async () => {
    await enqueue("e", dueIds(40));
    const forty = { ...options("t1"), batch: 80 };
    const { first, after } = await callTwice(protocol.begin, beginKeys(forty), beginNamed(forty));
    const items = idsOf(first.ordered);
    expect(items).toHaveLength(40);
    const tokens = after["oinproc:t1"] as Record<string, string>;
    expect(Object.keys(tokens).sort()).toEqual(items.map((x) => `idx ${x.id}`).sort());
    for (const x of items) expect(tokens[`idx ${x.id}`]).toMatch(new RegExp(`^t1 ${x.fence} \\d+$`));
    expect(await h.redis.object("ENCODING", `${h.prefix}oinproc:t1`)).toBe("hashtable");
    const outcomes = items.map((item) => ({ kind: "succeeded" as const, item }));
    const finish = finishArgs({ tick: "t1", leaseMs: LEASE, call: 2, ordered: { names: NAMES, outcomes } });
    const done = await callTwice(protocol.finish, tickKeys("t1"), finish);
    expect(done.after["oinproc:t1"]).toBeUndefined();
    expect(done.after["o:idx:running"]).toBe("0");
    expect(done.after["o:idx:held"]).toBeUndefined();
  });
});
