import { describe, expect, it } from "vitest";
import { drawPicks, planQueues } from "../../../src/tick/queue-order.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe("queue plans", () => {
  it("rejects an empty list and non-positive weights", () => {
    expect(() => planQueues([])).toThrow(/at least one queue/);
    expect(() => planQueues([["a", 0]])).toThrow(/positive weight/);
  });

  it("draws picks in proportion to the weights", () => {
    const picks = drawPicks(
      planQueues([
        ["a", 6],
        ["b", 3],
        ["c", 1],
      ]),
      100_000,
    );
    const share = (i: number) => picks.filter((p) => p === i).length / picks.length;
    expect(share(1)).toBeCloseTo(0.6, 1);
    expect(share(2)).toBeCloseTo(0.3, 1);
    expect(share(3)).toBeCloseTo(0.1, 1);
  });
});

describe.each(adapterCases)("queue order over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "queues");
  const enqueueBoth = async (
    tq: { enqueueBulk: (jobs: { name: "q"; args: unknown[]; queue: string }[]) => Promise<string[]> },
    n: number,
  ) => {
    await tq.enqueueBulk([
      ...Array.from({ length: n }, (_, i) => ({ name: "q" as const, args: [i], queue: "low" })),
      ...Array.from({ length: n }, (_, i) => ({ name: "q" as const, args: [i], queue: "high" })),
    ]);
  };

  it("strict order empties the first queue before touching the next", async () => {
    const order: string[] = [];
    const tq = h.make({ q: (_a: unknown[], ctx) => void order.push(ctx.queue) }, { queues: ["high", "low"] });
    await enqueueBoth(tq, 30);
    await tq.tick({ batch: 7, concurrency: 1 });
    expect(order).toEqual([...Array(30).fill("high"), ...Array(30).fill("low")]);
  });

  it("weighted order matches its weights within tolerance, and drains both", async () => {
    const order: string[] = [];
    const tq = h.make(
      { q: (_a: unknown[], ctx) => void order.push(ctx.queue) },
      {
        queues: [
          ["high", 3],
          ["low", 1],
        ],
      },
    );
    await enqueueBoth(tq, 1_000);
    await tq.tick({ batch: 20, concurrency: 1 });
    const first = order.slice(0, 800); // both queues still have jobs here
    const high = first.filter((q) => q === "high").length / first.length;
    expect(high).toBeGreaterThan(0.68);
    expect(high).toBeLessThan(0.82);
    expect(order).toHaveLength(2_000);
  });

  it("does not fetch from queues the tick does not serve", async () => {
    // A producer for another deployment's "low" queue, as well as a tick of "high".
    const tq = h.make({ q: () => {} }, { queues: ["high"], allowUndeclaredQueues: true });
    await enqueueBoth(tq, 3);
    const report = await tq.tick();
    expect(report.succeeded).toBe(3);
    expect(await h.redis.llen(`${h.prefix}queue:low`)).toBe(3);
  });
});
