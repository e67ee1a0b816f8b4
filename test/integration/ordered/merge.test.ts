// Merging: payloads of one id form a sorted set and run once together;
// payloads that arrive during a run wait and run after it, merged; ids are
// fetched oldest due first; plain jobs and ordered ids share a tick.
import { describe, expect, it } from "vitest";
import type { OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

interface Run {
  id: string;
  payloads: unknown[];
  scores: number[];
  fence: number;
}

describe.each(adapterCases)("ordered jobs merge over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-merge");
  const recorder = (runs: Run[], during?: (id: string, ctx: OrderedContext) => Promise<void>) => ({
    perform: async (id: string, payloads: unknown[], ctx: OrderedContext) => {
      runs.push({ id, payloads, scores: ctx.scores, fence: ctx.fence });
      await during?.(id, ctx);
    },
  });

  it("100 enqueues of one id with 3 distinct payloads: one execution with the 3, lowest score first", async () => {
    const runs: Run[] = [];
    const tq = h.make({}, { ordered: { idx: recorder(runs) } });
    const versions = [{ v: 3 }, { v: 1 }, { v: 2 }];
    for (let i = 0; i < 100; i++)
      await tq.enqueueOrdered("idx", { id: "shipment-42", payload: versions[i % 3], score: versions[i % 3]!.v });
    expect((await tq.stats()).ordered).toEqual({ idx: { waiting: 1, running: 0, payloads: 3, dead: 0 } });
    const report = await tq.tick();
    expect(report).toMatchObject({ fetched: 1, succeeded: 1 });
    expect(runs).toEqual([
      { id: "shipment-42", payloads: [{ v: 1 }, { v: 2 }, { v: 3 }], scores: [1, 2, 3], fence: expect.any(Number) },
    ]);
    expect((await tq.stats()).ordered).toEqual({ idx: { waiting: 0, running: 0, payloads: 0, dead: 0 } });
    expect(await tq.stats()).toMatchObject({ processed: 1, inflight: 0, ticks: 0 });
  });

  it("scores default to Redis' time; an identical payload is stored once, with its lowest score", async () => {
    const runs: Run[] = [];
    const tq = h.make({}, { ordered: { idx: recorder(runs) } });
    await tq.enqueueOrderedBulk([
      { name: "idx", id: "a", payload: "x" },
      { name: "idx", id: "a", payload: "y", score: 5 },
      { name: "idx", id: "a", payload: "y", score: 9 },
      { name: "idx", id: "a", payload: "y", score: 2 },
    ]);
    await tq.tick();
    const [now] = await h.redis.time();
    expect(runs[0]!.payloads).toEqual(["y", "x"]);
    expect(runs[0]!.scores[0]).toBe(2);
    expect(Math.abs(runs[0]!.scores[1]! - Number(now) * 1000)).toBeLessThan(10_000);
  });

  it("an id keeps its earliest due time", async () => {
    const runs: Run[] = [];
    const tq = h.make({}, { ordered: { idx: recorder(runs) } });
    await tq.enqueueOrdered("idx", { id: "later", payload: 1, delayMs: 60_000 });
    await tq.enqueueOrdered("idx", { id: "soon", payload: 1, delayMs: 60_000 });
    await tq.enqueueOrdered("idx", { id: "soon", payload: 2 }); // due now: the earlier time wins
    await tq.enqueueOrdered("idx", { id: "now", payload: 1 });
    await tq.enqueueOrdered("idx", { id: "now", payload: 2, delayMs: 60_000 }); // stays due now
    await tq.tick();
    expect(runs.map((r) => [r.id, r.payloads]).sort()).toEqual([
      ["now", [1, 2]],
      ["soon", [1, 2]],
    ]);
    expect((await tq.stats()).ordered.idx).toMatchObject({ waiting: 1, payloads: 1 });
  });

  it("fetches ready ids oldest due first, any number of them per batch", async () => {
    const runs: Run[] = [];
    const tq = h.make({}, { ordered: { idx: recorder(runs) } });
    for (let i = 0; i < 25; i++) {
      await tq.enqueueOrdered("idx", { id: `id-${i}`, payload: i });
      await sleep(2);
    }
    const report = await tq.tick({ batch: 10, concurrency: 1 });
    expect(report).toMatchObject({ succeeded: 25, more: false });
    expect(runs.map((r) => r.id)).toEqual(Array.from({ length: 25 }, (_, i) => `id-${i}`));
    const fences = runs.map((r) => r.fence);
    expect(fences.every((f, i) => i === 0 || f > fences[i - 1]!)).toBe(true); // each execution a larger fence
  });

  it("payloads that arrive during a run wait, then run after it, merged, with a larger fence", async () => {
    const runs: Run[] = [];
    let tq!: ReturnType<typeof make>;
    const make = () =>
      h.make(
        {},
        {
          ordered: {
            idx: recorder(runs, async (_id, ctx) => {
              if (runs.length !== 1) return;
              await tq.enqueueOrderedBulk([
                { name: "idx", id: "a", payload: "late-1", score: 1 },
                { name: "idx", id: "a", payload: "first", score: 0 }, // identical to a running payload: runs again after
                { name: "idx", id: "a", payload: "late-2", score: 2 },
              ]);
              expect((await tq.stats()).ordered.idx).toEqual({ waiting: 1, running: 1, payloads: 3, dead: 0 });
            }),
          },
        },
      );
    tq = make();
    await tq.enqueueOrdered("idx", { id: "a", payload: "first", score: 0 });
    const first = await tq.tick({ concurrency: 4 });
    // the same tick may take the merged run once the first is acked; if not, it says more is left
    if (runs.length === 1) {
      expect(first.more).toBe(true);
      await tq.tick();
    }
    expect(runs).toEqual([
      { id: "a", payloads: ["first"], scores: [0], fence: expect.any(Number) },
      { id: "a", payloads: ["first", "late-1", "late-2"], scores: [0, 1, 2], fence: expect.any(Number) },
    ]);
    expect(runs[1]!.fence).toBeGreaterThan(runs[0]!.fence);
    expect((await tq.stats()).ordered.idx).toEqual({ waiting: 0, running: 0, payloads: 0, dead: 0 });
  });

  it("runs in a tick registered as a Sidekiq process too (its beat sections shift the fetch arguments)", async () => {
    const runs: Run[] = [];
    const ran: number[] = [];
    const tq = h.make(
      { plain: (args: [number]) => void ran.push(args[0]) },
      { sidekiqProcesses: true, ordered: { idx: recorder(runs) } },
    );
    await tq.enqueueBulk(Array.from({ length: 15 }, (_, i) => ({ name: "plain", args: [i] })));
    await tq.enqueueOrderedBulk(Array.from({ length: 15 }, (_, i) => ({ name: "idx", id: `o${i}`, payload: i })));
    expect(await tq.tick({ batch: 10 })).toMatchObject({ succeeded: 30, fetched: 30 });
    expect(runs).toHaveLength(15);
    expect(ran).toHaveLength(15);
    expect((await tq.stats()).ordered.idx).toEqual({ waiting: 0, running: 0, payloads: 0, dead: 0 });
  });

  it("plain jobs and ordered ids share a tick; neither starves the other", async () => {
    const order: string[] = [];
    const tq = h.make(
      { plain: (args: [number]) => void order.push(`p${args[0]}`) },
      {
        ordered: { idx: { perform: (id: string) => void order.push(id) } },
      },
    );
    await tq.enqueueBulk(Array.from({ length: 30 }, (_, i) => ({ name: "plain", args: [i] })));
    await tq.enqueueOrderedBulk(Array.from({ length: 30 }, (_, i) => ({ name: "idx", id: `o${i}`, payload: i })));
    const report = await tq.tick({ batch: 10, concurrency: 1 });
    expect(report).toMatchObject({ succeeded: 60, fetched: 60 });
    const firstBatch = order.slice(0, 10);
    expect(firstBatch.filter((x) => x.startsWith("o"))).toHaveLength(5);
    expect(firstBatch.filter((x) => x.startsWith("p"))).toHaveLength(5);
  });
});
