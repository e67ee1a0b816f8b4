// begin answers an ordered group's ids, payloads and scores joined (lib/common/joined.lua), in
// chunks of at most 8 KiB past it. At the edges (a chunk of exactly 8,192 bytes, multi-byte
// characters closing a chunk, a stored empty payload, a payload holding the separator, scores Redis
// writes in exponent form) each id reads back its own payloads and scores, and a replay with the
// same arguments answers the same bytes and leaves the same state.
import { describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { beginKeys, beginNamed, type BeginOptions } from "../../helpers/begin-args.js";
import { useHarness } from "../../helpers/harness.js";
import { scriptCalls } from "../../helpers/script-calls.js";
import { idsOf, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs } from "../../helpers/tick-calls.js";

const options = (tick: string): BeginOptions => ({ tick, leaseMs: 5_000, ordered: ["idx"], batch: 50 });

describe.each(adapterCases)("ordered groups joined at their edges, run twice, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-joined-edges");
  const { call, callTwice } = scriptCalls(h);
  const enqueue = (items: [string, string, string][]) =>
    call(protocol.ordered_enqueue, ORDERED_ENQUEUE_KEYS, orderedEnqueueArgs("e", items));
  const beginTwice = async () => {
    const { first } = await callTwice(protocol.begin, beginKeys(options("t1")), beginNamed(options("t1")));
    return idsOf(first.ordered).map(({ id, payloads, scores }) => ({ id, payloads, scores }));
  };

  it("a chunk of exactly 8,192 bytes, then one of multi-byte characters: each id its own payload", async () => {
    // "a" 4,096 bytes + separator + "b" 4,095 bytes = 8,192: one chunk; "c" starts the next.
    const a = `"${"a".repeat(4_094)}"`;
    const b = `"${"é".repeat(2_046)}b"`; // 2 + 4,092 + 1 = 4,095 bytes
    const c = `"${"€".repeat(3_000)}"`; // 9,002 bytes: a chunk alone
    const d = `"${"ü".repeat(10)}"`;
    expect([a, b, c, d].map((t) => Buffer.byteLength(t))).toEqual([4_096, 4_095, 9_002, 22]);
    await enqueue([
      ["id-a", a, "1"],
      ["id-b", b, "2"],
      ["id-c", c, "3"],
      ["id-d", d, "4"],
    ]);
    expect(await beginTwice()).toEqual([
      { id: "id-a", payloads: [a], scores: [1] },
      { id: "id-b", payloads: [b], scores: [2] },
      { id: "id-c", payloads: [c], scores: [3] },
      { id: "id-d", payloads: [d], scores: [4] },
    ]);
  });

  it("scores Redis writes in exponent form, negative and fractional: each read back as the number stored", async () => {
    const scores = [1e20, -1.5, 1e-7, 0.1 + 0.2, -1e300, 5e-324, 2 ** 53 + 2, 123456.789];
    await enqueue(scores.map((s, i) => [`id-${i}`, `"p${i}"`, String(s)] as [string, string, string]));
    const got = await beginTwice();
    expect(got.map((x) => [x.id, x.scores])).toEqual(scores.map((s, i) => [`id-${i}`, [s]]));
  });

  it("a stored payload of invalid UTF-8 between two others: it reads as U+FFFD, its neighbours intact", async () => {
    await enqueue([
      ["id-0", '"a"', "1"],
      ["id-1", '"b"', "2"],
      ["id-2", '"c"', "3"],
    ]);
    // Written by something other than tickq: a lone byte and a sequence cut short, last in the id's texts.
    await h.redis.zadd(`${h.prefix}o:idx:p:id-1`, 2.5, Buffer.from([0x22, 0xff, 0xe2, 0x82, 0x22]));
    expect(await beginTwice()).toEqual([
      { id: "id-0", payloads: ['"a"'], scores: [1] },
      { id: "id-1", payloads: ['"b"', '"\uFFFD\uFFFD"'], scores: [2, 2.5] },
      { id: "id-2", payloads: ['"c"'], scores: [3] },
    ]);
  });

  it("a stored score of ±inf (written past the client's checks): read as ±Infinity, not NaN", async () => {
    await enqueue([["id-0", '"a"', "1"]]);
    await h.redis.zadd(`${h.prefix}o:idx:p:id-0`, "+inf", '"b"', "-inf", '"c"');
    expect(await beginTwice()).toEqual([
      { id: "id-0", payloads: ['"c"', '"a"', '"b"'], scores: [-Infinity, 1, Infinity] },
    ]);
  });

  it("an id holding the separator (enqueued past the client's checks): the ids go as a list, each its own payloads", async () => {
    await enqueue([
      ["x\u001ey", '"a"', "1"],
      ["z", '"b"', "2"],
    ]);
    expect(await beginTwice()).toEqual([
      { id: "x\u001ey", payloads: ['"a"'], scores: [1] },
      { id: "z", payloads: ['"b"'], scores: [2] },
    ]);
  });

  it("several payloads an id, one stored empty and one holding the separator: each id its own, in score order", async () => {
    await enqueue([
      ["id-0", '"a"', "1"],
      ["id-0", '"b"', "2"],
      ["id-1", '"c"', "3"],
      ["id-2", '"d"', "4"],
    ]);
    // Written by something other than tickq.
    await h.redis.zadd(`${h.prefix}o:idx:p:id-1`, 3.5, "");
    await h.redis.zadd(`${h.prefix}o:idx:p:id-2`, 5, '"e\u001ef"');
    expect(await beginTwice()).toEqual([
      { id: "id-0", payloads: ['"a"', '"b"'], scores: [1, 2] },
      { id: "id-1", payloads: ['"c"', ""], scores: [3, 3.5] },
      { id: "id-2", payloads: ['"d"', '"e\u001ef"'], scores: [4, 5] },
    ]);
  });
});
