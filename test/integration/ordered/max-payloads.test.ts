// maxPayloads: an execution gets at most that many of the id's payloads, lowest score first; the rest
// (and arrivals) run in later executions, in order, one execution of the id at a time, with growing
// fences. A retry gets its payloads back merged with the rest; a dead entry holds only the run's; a cancel takes the run and everything waiting behind it. The
// sizes (tq.stats().ordered) stay exact throughout.
import { describe, expect, it } from "vitest";
import { type OrderedContext, TickqError } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

interface Run {
  id: string;
  payloads: unknown[];
  fence: number;
  attempt: number;
}

const idle = { waiting: 0, running: 0, payloads: 0, dead: 0 };

describe.each(adapterCases)("ordered maxPayloads over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-max-payloads");

  /** A handler that records its runs and notes any overlap of one id's runs. */
  const recorder = (runs: Run[], during?: (id: string, ctx: OrderedContext) => Promise<void> | void) => {
    const live = new Set<string>();
    const overlaps: string[] = [];
    const perform = async (id: string, payloads: unknown[], ctx: OrderedContext) => {
      if (live.has(id)) overlaps.push(id);
      live.add(id);
      try {
        runs.push({ id, payloads, fence: ctx.fence, attempt: ctx.attempt });
        await during?.(id, ctx);
      } finally {
        live.delete(id);
      }
    };
    return { perform, overlaps };
  };
  /** Ticks until nothing is due (at most `max` ticks). */
  const drain = async (tq: { tick(o?: object): Promise<{ fetched: number; more?: boolean }> }, max = 200) => {
    for (let i = 0; i < max; i++) {
      const report = await tq.tick();
      if (report.fetched === 0 && !report.more) return;
    }
  };
  const increasing = (xs: number[]) => xs.every((x, i) => i === 0 || x > xs[i - 1]!);

  it("50 payloads of one id with maxPayloads 1: 50 executions in score order, never overlapping, fences growing", async () => {
    const runs: Run[] = [];
    const { perform, overlaps } = recorder(runs);
    const tq = h.make({}, { ordered: { idx: { perform, maxPayloads: 1 } } });
    // Enqueued highest score first: the order is the scores', not the enqueue's.
    await tq.enqueueOrderedBulk(
      Array.from({ length: 50 }, (_, i) => ({ name: "idx" as const, id: "a", payload: { v: 49 - i }, score: 49 - i })),
    );
    expect((await tq.stats()).ordered.idx).toEqual({ ...idle, waiting: 1, payloads: 50 });
    await drain(tq);
    expect(runs.map((r) => r.payloads)).toEqual(Array.from({ length: 50 }, (_, i) => [{ v: i }]));
    expect(increasing(runs.map((r) => r.fence))).toBe(true);
    expect(overlaps).toEqual([]);
    expect(await tq.stats()).toMatchObject({ processed: 50, ordered: { idx: idle } });
    expect(await h.redis.exists(`${h.prefix}o:idx:n:a`, `${h.prefix}o:idx:p:a`, `${h.prefix}o:idx:later`)).toBe(0);
  });

  it("maxPayloads 3 with arrivals during a run: the arrivals join the rest, in score order", async () => {
    const runs: Run[] = [];
    const sizes: unknown[] = [];
    let tq!: ReturnType<typeof make>;
    const { perform, overlaps } = recorder(runs, async () => {
      if (runs.length !== 1) return;
      sizes.push((await tq.stats()).ordered.idx);
      await tq.enqueueOrderedBulk([
        { name: "idx", id: "a", payload: "v0", score: 0.5 },
        { name: "idx", id: "a", payload: "v6", score: 6 },
      ]);
      sizes.push((await tq.stats()).ordered.idx);
    });
    const make = () => h.make({}, { ordered: { idx: { perform, maxPayloads: 3 } } });
    tq = make();
    await tq.enqueueOrderedBulk(
      [1, 2, 3, 4, 5].map((v) => ({ name: "idx" as const, id: "a", payload: `v${v}`, score: v })),
    );
    await drain(tq);
    expect(runs.map((r) => r.payloads)).toEqual([["v1", "v2", "v3"], ["v0", "v4", "v5"], ["v6"]]);
    // While the first run held 3, 2 waited behind it (the id counted waiting as well as running); then 4.
    expect(sizes).toEqual([
      { ...idle, waiting: 1, running: 1, payloads: 2 },
      { ...idle, waiting: 1, running: 1, payloads: 4 },
    ]);
    expect(increasing(runs.map((r) => r.fence))).toBe(true);
    expect(overlaps).toEqual([]);
    expect(await tq.stats()).toMatchObject({ processed: 3, ordered: { idx: idle } });
  });

  it("a failed run with payloads left: the retry gets the same lowest payloads, the rest follow in order", async () => {
    const runs: Run[] = [];
    const { perform } = recorder(runs, (_id, ctx) => {
      if (ctx.attempt === 1 && runs.length === 1) throw new Error("index down");
    });
    const tq = h.make({}, { ordered: { idx: { perform, maxPayloads: 2, backoffMs: () => 0 } } });
    await tq.enqueueOrderedBulk([5, 4, 3, 2, 1].map((v) => ({ name: "idx" as const, id: "a", payload: v, score: v })));
    // Due again at once (no backoff), the retry runs in the same tick, as does the rest behind it:
    // each step acks a run and takes the id again (replay/ordered-capped-twice shows the merge).
    expect(await tq.tick()).toMatchObject({ failed: 1, retried: 1, succeeded: 3, more: false });
    await drain(tq);
    expect(runs.map((r) => [r.payloads, r.attempt])).toEqual([
      [[1, 2], 1],
      [[1, 2], 2],
      [[3, 4], 1],
      [[5], 1],
    ]);
    expect(await tq.stats()).toMatchObject({ processed: 4, failed: 1, ordered: { idx: idle } });
  });

  it("a dead run with payloads left: its dead entry holds only its payloads, the rest run", async () => {
    const runs: Run[] = [];
    const { perform } = recorder(runs, (_id) => {
      if (runs.length === 1) throw new TypeError("bad data");
    });
    const tq = h.make({}, { ordered: { idx: { perform, maxPayloads: 2, retry: false } } });
    await tq.enqueueOrderedBulk([1, 2, 3, 4, 5].map((v) => ({ name: "idx" as const, id: "a", payload: v, score: v })));
    expect(await tq.tick()).toMatchObject({ dead: 1 });
    const entries = (await h.redis.zrange(`${h.prefix}o:idx:dead`, "0", "-1")).map(
      (e) => JSON.parse(e) as { payloads: unknown[]; scores: number[] },
    );
    expect(entries.map((e) => [e.payloads, e.scores])).toEqual([
      [
        [1, 2],
        [1, 2],
      ],
    ]);
    await drain(tq);
    expect(runs.map((r) => r.payloads)).toEqual([[1, 2], [3, 4], [5]]);
    expect(await tq.stats()).toMatchObject({ ordered: { idx: { ...idle, dead: 1 } } });
  });

  it("a cancel of a running capped id ends the run cancelled and cancels the payloads left behind it; later ones run", async () => {
    const runs: Run[] = [];
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const { perform, overlaps } = recorder(runs, (_id, ctx) => {
      if (runs.length > 1) return;
      started();
      return new Promise<void>((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)));
    });
    const tq = h.make({}, { ordered: { idx: { perform, maxPayloads: 1 } } });
    await tq.enqueueOrderedBulk([1, 2, 3].map((v) => ({ name: "idx" as const, id: "a", payload: v, score: v })));
    const ticking = tq.tick({ budgetMs: 8_000, cancelCheckMs: 100 });
    await running;
    const answer = await tq.jobs.cancelOrdered("idx", "a");
    expect(answer).toMatchObject({ state: expect.stringMatching(/^cancell/), from: "running", payloads: 2 });
    await tq.enqueueOrdered("idx", { id: "a", payload: "after" });
    expect(await ticking).toMatchObject({ cancelled: 1, failed: 0, dead: 0 });
    await drain(tq);
    expect(runs.map((r) => r.payloads)).toEqual([[1], ["after"]]);
    expect(overlaps).toEqual([]);
    const recorded = (await h.redis.zrange(`${h.prefix}cancelled`, "0", "-1"))
      .map((t) => JSON.parse(t) as { tickq_cancelled_from: string; args: [string, unknown[]] })
      .map((r) => [r.tickq_cancelled_from, r.args[1]]);
    expect(recorded).toEqual(
      expect.arrayContaining([
        ["queued", [2, 3]],
        ["running", [1]],
      ]),
    );
    expect(recorded).toHaveLength(2);
    expect(await tq.stats()).toMatchObject({ ordered: { idx: idle } });
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "3"])(
    "maxPayloads %s is refused at createTickq, naming the option",
    (bad) => {
      const make = () => h.make({}, { ordered: { idx: { perform: () => {}, maxPayloads: bad as number } } });
      expect(make).toThrow(TickqError);
      expect(make).toThrow(/ordered job "idx": maxPayloads must be an integer ≥ 1/);
    },
  );
});
