// An id's payloads reach its handler lowest score first, with their scores, whatever its sorted set's
// encoding: the fetch reads them by ZSCAN (a listpack's scores as stored) and takes its answer only
// when it is whole and in ZRANGE's order (lib/ordered/state.lua read_payloads_of). A hashtable (a
// payload over 64 bytes, or over 128 payloads) answers in hash order, and equal scores order by
// member: each must come out as ZRANGE … WITHSCORES has it.
import { describe, expect, it } from "vitest";
import type { OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("ordered payloads read in score order, any encoding, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-read-enc");

  /** Each case's payloads (with explicit scores) for id `id`, and what ZRANGE WITHSCORES answers for it. */
  const cases: Record<string, { payload: unknown; score: number }[]> = {
    // Scores given falling and mixed: a listpack keeps them sorted.
    "small, one listpack": [5, 3, 9, 1, 7].map((score) => ({ payload: `p${score}`, score })),
    // Over 64 bytes: a hashtable, read in hash order.
    "long payloads, a hashtable": [50, 10, 40, 20, 30, 60, 5].map((score) => ({
      payload: `${"x".repeat(80)}${score}`,
      score,
    })),
    // Over 128 payloads: a hashtable too.
    "many payloads, a hashtable": Array.from({ length: 150 }, (_, n) => ({ payload: n, score: (n * 37) % 150 })),
    // Equal scores: by member, bytewise ("B" before "a", "a" before "b").
    "equal scores": ["b", "a", "B", "c"].map((payload) => ({ payload, score: 1 })),
    "equal scores, long": ["b", "a", "B"].map((payload) => ({ payload: `${payload}${"y".repeat(80)}`, score: 2 })),
    "a single payload": [{ payload: { one: 1 }, score: 1.5 }],
    "fractional and exponent scores": [1e21, -0.5, 1.25e-7, 3].map((score, n) => ({ payload: n, score })),
  };

  it("each id's payloads and scores as ZRANGE orders them", async () => {
    const seen = new Map<string, { payloads: unknown[]; scores: number[] }>();
    const tq = h.make(
      {},
      {
        ordered: {
          idx: {
            perform: (id: string, payloads: unknown[], ctx: OrderedContext) =>
              void seen.set(id, { payloads, scores: ctx.scores }),
          },
        },
      },
    );
    const expected = new Map<string, { payloads: unknown[]; scores: number[] }>();
    for (const [id, items] of Object.entries(cases)) {
      await tq.enqueueOrderedBulk(items.map(({ payload, score }) => ({ name: "idx", id, payload, score })));
      const read = await h.redis.zrange(`${h.prefix}o:idx:p:${id}`, "0", "-1", "WITHSCORES");
      const payloads: unknown[] = [];
      const scores: number[] = [];
      for (let k = 0; k < read.length; k += 2) {
        payloads.push(JSON.parse(read[k]!));
        scores.push(Number(read[k + 1]));
      }
      expect(payloads).toHaveLength(items.length);
      expected.set(id, { payloads, scores });
    }
    const encodings = await Promise.all(
      Object.keys(cases).map((id) => h.redis.object("ENCODING", `${h.prefix}o:idx:p:${id}`)),
    );
    expect(encodings).toContain("listpack");
    expect(encodings).toContain("skiplist");
    expect(await tq.tick({ batch: 100 })).toMatchObject({ succeeded: Object.keys(cases).length });
    for (const id of Object.keys(cases)) expect(seen.get(id), id).toEqual(expected.get(id));
  });
});
