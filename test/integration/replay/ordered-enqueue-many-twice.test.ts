// ordered_enqueue makes an id's sorted set a skiplist before it adds 8 payloads or more of one call to it
// (a member longer than any listpack value, added first and removed last), when every payload of the call
// is sequenced by Redis. Run twice with the same arguments: the payloads are stored once each, in the
// call's order, under Redis-sequenced scores, no member of the call's own is left, and the second run adds
// nothing. A call with a score of its own anywhere leaves the sets as ZADD alone would (a listpack).
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs } from "../../helpers/tick-calls.js";

describe.each(adapterCases)("ordered_enqueue of many payloads an id, run twice over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-enqueue-many-replay");
  const { call, callTwice } = scriptCalls(h);
  const key = (id: string, set = "p") => `${h.prefix}o:idx:${set}:${id}`;
  const withScores = async (k: string) => {
    const flat = await h.redis.zrange(k, "0", "-1", "WITHSCORES");
    return Array.from({ length: flat.length / 2 }, (_, i) => ({
      payload: flat[2 * i]!,
      score: Number(flat[2 * i + 1]),
    }));
  };
  // Payloads whose text order is not the call's: "10" sorts before "9" as text.
  const many = (id: string, from: number, n: number): [string, string][] =>
    Array.from({ length: n }, (_, k) => [id, `"${from + n - 1 - k}"`]);

  it("8 payloads of one id among ids given once: a skiplist, in the call's order, none twice, no member of its own", async () => {
    const items = [...many("a", 3, 8), ["b", '"x"'] as [string, string], ...many("c", 0, 7)];
    const { first } = await callTwice(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs("m", items));
    expect(first).toBe("1".repeat(16));
    const a = await withScores(key("a"));
    expect(a.map((x) => x.payload)).toEqual(many("a", 3, 8).map(([, p]) => p));
    // Redis' time in ms, each next double above the last (lib/ordered/sequence-score.lua).
    for (let k = 1; k < a.length; k++) expect(a[k]!.score).toBeGreaterThan(a[k - 1]!.score);
    expect(Math.floor(a[7]!.score)).toBe(Math.floor(a[0]!.score));
    expect(await h.redis.object("ENCODING", key("a"))).toBe("skiplist");
    // Seven (under the threshold) and one stay a listpack.
    expect(await h.redis.object("ENCODING", key("c"))).toBe("listpack");
    expect(await h.redis.object("ENCODING", key("b"))).toBe("listpack");
    expect((await withScores(key("c"))).map((x) => x.payload)).toEqual(many("c", 0, 7).map(([, p]) => p));
    expect(await h.redis.get(`${h.prefix}o:idx:payloads`)).toBe("16");
  });

  it("a second call of 8 to an id that waits: after the first's, an identical one stored once at its lower score", async () => {
    await call(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs("seed", many("a", 100, 3)));
    const seeded = await withScores(key("a"));
    const items = [["a", '"101"'] as [string, string], ...many("a", 0, 8)];
    const { first } = await callTwice(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs("m2", items));
    expect(first).toBe(`0${"1".repeat(8)}`);
    const a = await withScores(key("a"));
    expect(a.slice(0, 3)).toEqual(seeded);
    expect(a.map((x) => x.payload)).toEqual([...seeded.map((x) => x.payload), ...many("a", 0, 8).map(([, p]) => p)]);
    expect(await h.redis.object("ENCODING", key("a"))).toBe("skiplist");
    expect(await h.redis.get(`${h.prefix}o:idx:payloads`)).toBe("11");
  });

  it("an id a tick holds: its 8 arrivals go to n:ID the same way", async () => {
    await call(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs("seed", [["a", '"run"']]));
    // Held: out of `ready`, its payload still in p:ID (as a fetch leaves it).
    await h.redis.zrem(`${h.prefix}o:idx:ready`, "a");
    const { first } = await callTwice(
      protocol.ordered_enqueue,
      ORDERED_ENQUEUE_KEYS,
      orderedEnqueueArgs("held", many("a", 0, 8)),
    );
    expect(first).toBe("1".repeat(8));
    expect(await h.redis.zrange(key("a"), "0", "-1")).toEqual(['"run"']);
    expect(await h.redis.zrange(key("a", "n"), "0", "-1")).toEqual(many("a", 0, 8).map(([, p]) => p));
    expect(await h.redis.object("ENCODING", key("a", "n"))).toBe("skiplist");
  });

  it("a call with a score of its own anywhere: no set is made a skiplist", async () => {
    const items: [string, string, string?][] = [...many("a", 0, 8), ["b", '"x"', "5"]];
    const { first } = await callTwice(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs("s", items));
    expect(first).toBe("1".repeat(9));
    expect(await h.redis.object("ENCODING", key("a"))).toBe("listpack");
    expect((await h.redis.zrange(key("a"), "0", "-1")).length).toBe(8);
  });
});
