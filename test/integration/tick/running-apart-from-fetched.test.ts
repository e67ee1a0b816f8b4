// stats() tells the jobs whose handlers run from those a tick fetched and
// has not started: a tick with 2 slots that fetched 6 long jobs shows 2
// running, however many its lists hold (the dashboard once showed every
// fetched job as "in flight": 85 for a tick of concurrency 10). The figures
// ride on the tick's own calls (its lease extensions here), and are gone
// with the tick once it finishes.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.each(adapterCases)("running apart from fetched over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "running");

  it("counts the running handlers, at most the tick's slots, and the fetched ones apart", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const tickq = h.make({
      hold: async () => {
        started++;
        await held;
      },
    });
    await tickq.enqueueBulk(
      Array.from({ length: 6 }, (_, n) => ({ name: "hold" as const, args: [] as [], jid: `h${n}` })),
    );
    const tick = tickq.tick({ concurrency: 2, batch: 6, leaseMs: 600, budgetMs: 20_000 });
    let stats = await tickq.stats();
    for (let i = 0; i < 100 && stats.running !== 2; i++) {
      await sleep(50);
      stats = await tickq.stats();
    }
    expect(started).toBe(2);
    expect(stats.running).toBe(2);
    // What the tick holds beyond its running jobs waits for a slot (or went back to the queue).
    expect(stats.fetchedWaiting).toBeGreaterThanOrEqual(0);
    expect(stats.running + stats.fetchedWaiting).toBeLessThanOrEqual(stats.inflight);
    expect(stats.inflight + (stats.queues.default ?? 0)).toBe(6);
    release();
    await tick;
    const after = await tickq.stats();
    expect([after.running, after.fetchedWaiting]).toEqual([0, 0]);
  });
});
