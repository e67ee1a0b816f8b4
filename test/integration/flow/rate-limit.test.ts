// Rate limits: at most `limit` starts per key in any `periodMs`; a job over
// it goes back to the schedule set, due when it may start, without using a
// retry, and other keys run meanwhile. None is lost.
import { describe, expect, it } from "vitest";
import type { JobContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("rate limits over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-rate");

  it("10 a second on one key: no 10 starts closer than the period, other keys unhindered, none lost, no retry used", async () => {
    const starts: { key: string; at: number; tickAt: number; attempt: number }[] = [];
    // When the tick now running began.
    let tickAt = 0;
    const tq = h.make({
      call: {
        perform: ([key]: [string, number], ctx: JobContext) =>
          void starts.push({ key, at: Date.now(), tickAt, attempt: ctx.attempt }),
        rateLimit: { key: ([key]: [string, number]) => key, limit: 10, periodMs: 1_000 },
      },
    });
    await tq.enqueueBulk(
      Array.from({ length: 25 }, (_, i) => ({ name: "call" as const, args: ["slow", i] as [string, number] })),
    );
    await tq.enqueueBulk(
      Array.from({ length: 15 }, (_, i) => ({ name: "call" as const, args: [`fast-${i}`, i] as [string, number] })),
    );
    tickAt = Date.now();
    await tq.tick({ budgetMs: 500 });
    expect(starts.filter((s) => s.key.startsWith("fast"))).toHaveLength(15); // other keys are not held back
    expect(starts.filter((s) => s.key === "slow")).toHaveLength(10);
    const stats = await tq.stats();
    expect(stats.flow.call!.deferred).toBe(15);
    expect(stats.scheduled).toBe(15);
    for (let round = 0; round < 40 && starts.length < 40; round++) {
      tickAt = Date.now();
      await tq.tick({ budgetMs: 300 });
      await sleep(100);
    }
    const slow = starts.filter((s) => s.key === "slow");
    expect(slow).toHaveLength(25);
    expect(new Set(starts.map((s) => s.attempt))).toEqual(new Set([1])); // no retry used
    // Redis admits a start within its tick's call and JS runs it after: a start is no earlier than its
    // admission, and its tick began no later. So any start is a period past the tick of the start 10
    // before it, however late the replies came at load (JS start times alone moved by over 200 ms).
    for (let i = 10; i < slow.length; i++) expect(slow[i]!.at - slow[i - 10]!.tickAt).toBeGreaterThanOrEqual(990);
    expect((await tq.stats()).flow.call).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
  });
});
