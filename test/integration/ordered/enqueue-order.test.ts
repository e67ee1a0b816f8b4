// Without an explicit score, the payloads of one id run in the order their
// enqueues were applied, even when many land in one millisecond (one bulk
// call is one script call: one Redis time). A sorted set orders equal scores
// by member, so a bare time score would run them in JSON-text order
// (7 after 407). Explicit scores keep their meaning.
import { describe, expect, it } from "vitest";
import type { OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

interface Run {
  id: string;
  payloads: unknown[];
  scores: number[];
}

const ascending = (xs: number[]) => xs.every((x, i) => i === 0 || x > xs[i - 1]!);

describe.each(adapterCases)("ordered payloads keep their enqueue order over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-enqueue-order");
  const recorder = (runs: Run[], during?: (id: string, ctx: OrderedContext) => Promise<void>) => ({
    perform: async (id: string, payloads: unknown[], ctx: OrderedContext) => {
      runs.push({ id, payloads, scores: ctx.scores });
      await during?.(id, ctx);
    },
  });
  const redisMs = async () => {
    const [sec, micro] = await h.redis.time();
    return Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
  };

  it("payloads of one id sent in one bulk call run in the order given, not in JSON-text order", async () => {
    const runs: Run[] = [];
    const tq = h.make({}, { ordered: { idx: recorder(runs) } });
    const before = await redisMs();
    // key-K receives K, 100 + K, 200 + K, …: as text, "107" sorts before "7".
    await tq.enqueueOrderedBulk(
      Array.from({ length: 500 }, (_, n) => ({ name: "idx", id: `key-${n % 100}`, payload: n })),
    );
    const after = await redisMs();
    expect(await tq.tick({ batch: 100 })).toMatchObject({ succeeded: 100, more: false });
    expect(runs).toHaveLength(100);
    for (const run of runs) {
      const k = Number(run.id.slice("key-".length));
      expect(run.payloads, run.id).toEqual([k, 100 + k, 200 + k, 300 + k, 400 + k]);
      expect(ascending(run.scores), `${run.id}: ${run.scores.join(", ")}`).toBe(true);
      // Still Redis' time in ms, a fraction of a ms apart.
      for (const score of run.scores) {
        expect(score).toBeGreaterThanOrEqual(before);
        expect(score).toBeLessThan(after + 1);
      }
    }
  });

  it("more payloads of one id than fit a call keep their order across the calls", async () => {
    const runs: Run[] = [];
    const tq = h.make({}, { ordered: { idx: recorder(runs) } });
    // 2,500 payloads go in three script calls (1,000 a call), likely within a ms or two of each other.
    await tq.enqueueOrderedBulk(Array.from({ length: 2_500 }, (_, n) => ({ name: "idx", id: "one", payload: n })));
    await tq.tick();
    expect(runs).toHaveLength(1);
    expect(runs[0]!.payloads).toEqual(Array.from({ length: 2_500 }, (_, n) => n));
    expect(ascending(runs[0]!.scores)).toBe(true);
  });

  it("payloads that arrive while the id runs keep their order in the run after it", async () => {
    const runs: Run[] = [];
    let tq!: ReturnType<typeof make>;
    const make = () =>
      h.make(
        {},
        {
          ordered: {
            idx: recorder(runs, async () => {
              if (runs.length !== 1) return;
              await tq.enqueueOrderedBulk(Array.from({ length: 30 }, (_, n) => ({ name: "idx", id: "a", payload: n })));
            }),
          },
        },
      );
    tq = make();
    await tq.enqueueOrdered("idx", { id: "a", payload: "first" });
    await tq.tick();
    if (runs.length === 1) await tq.tick();
    expect(runs.map((r) => r.payloads)).toEqual([["first"], Array.from({ length: 30 }, (_, n) => n)]);
    expect(ascending(runs[1]!.scores)).toBe(true);
  });

  it("explicit scores keep their meaning beside default ones, which follow in enqueue order", async () => {
    const runs: Run[] = [];
    const tq = h.make({}, { ordered: { idx: recorder(runs) } });
    await tq.enqueueOrderedBulk([
      { name: "idx", id: "a", payload: "t-1" },
      { name: "idx", id: "a", payload: "e-30", score: 30 },
      { name: "idx", id: "a", payload: "t-2" },
      { name: "idx", id: "a", payload: "e-10", score: 10 },
      { name: "idx", id: "a", payload: "e-10.5", score: 10.5 },
      { name: "idx", id: "a", payload: "t-3" },
      { name: "idx", id: "a", payload: "t-2" }, // identical to a waiting payload: stored once, keeping its place
    ]);
    await tq.tick();
    expect(runs).toHaveLength(1);
    expect(runs[0]!.payloads).toEqual(["e-10", "e-10.5", "e-30", "t-1", "t-2", "t-3"]);
    expect(runs[0]!.scores.slice(0, 3)).toEqual([10, 10.5, 30]);
    expect(ascending(runs[0]!.scores)).toBe(true);
  });
});
