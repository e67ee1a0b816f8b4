// The chaos phases' settle (bench/chaos/settle.ts): on a loaded machine a
// concurrency-limited key drains at its limit × a slow round, so a fixed
// window failed a key that was only slow. The settle waits while the work
// left keeps falling, gives up once it stops falling (a leaked slot, or
// anything else that stopped) and at a cap, and says which.
import { describe, expect, it } from "vitest";
import { settle } from "../../bench/chaos/settle.js";
import type { Stats } from "../../src/stats/types.js";

/** A tickq whose stats() report `work()` jobs queued, one read at a time. */
function fake(work: () => number): { stats(): Promise<Stats> } {
  return {
    stats: async () =>
      ({ queues: { default: work() }, scheduled: 0, retry: 0, inflight: 0, flow: {}, ordered: {} }) as unknown as Stats,
  };
}

const limits = { stallMs: 800, capMs: 4_000, leaseMs: 100 };

describe("the chaos settle", () => {
  it("keeps waiting past the stall window while the work left falls, and settles once it is gone", async () => {
    let left = 12; // one less a read, every 200 ms: 2.4 s, three stall windows
    const outcome = await settle(
      fake(() => Math.max(0, left--)),
      limits,
    );
    expect(outcome).toMatchObject({ settled: true, workAtStart: 12, workAtEnd: 0 });
    expect(outcome.why).toBeUndefined();
  });

  it("gives up once the work left has not fallen for the stall window, and says so", async () => {
    const outcome = await settle(
      fake(() => 5),
      limits,
    );
    expect(outcome).toMatchObject({ settled: false, workAtStart: 5, workAtEnd: 5 });
    expect(outcome.why).toMatch(/^no progress for 1 s \(5 left after \d+ s\)$/);
    expect(outcome.seconds).toBeLessThan(3);
  });

  it("gives up at the cap when the work keeps falling but never runs out", async () => {
    let left = 1_000_000;
    const outcome = await settle(
      fake(() => left--),
      limits,
    );
    expect(outcome.settled).toBe(false);
    expect(outcome.why).toMatch(/^still draining at the cap of 4 s \(1000000 → \d+ left\)$/);
  });
});
