// A tick acts only while its lease is confirmed. A CPU-bound handler that
// blocks the event loop past the lease: another tick may already own the
// batch, so the blocked tick, when it wakes, must start nothing more.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const busy = (ms: number) => {
  const until = Date.now() + ms;
  while (Date.now() < until);
};

describe.each(adapterCases)("the lease fence over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "fence");

  it("a tick whose event loop froze past its lease starts none of its remaining jobs", async () => {
    const started: number[] = [];
    const tq = h.make({
      work: (args: [number]) => {
        started.push(args[0]);
        if (args[0] === 0) busy(1_500);
      },
    });
    await tq.enqueueBulk(Array.from({ length: 10 }, (_, i) => ({ name: "work", args: [i] })));
    // a lease long enough for begin to answer on a loaded machine (the first job must start), short of the freeze
    const frozen = await tq.tick({ batch: 10, concurrency: 1, leaseMs: 800 });
    expect(started).toEqual([0]);
    expect(frozen).toMatchObject({ leaseLost: true, succeeded: 1, requeued: 9 });
    // the rest are back in the queue, in order, for the next tick
    const next = await tq.tick({ batch: 10, concurrency: 1 });
    expect(next).toMatchObject({ succeeded: 9, leaseLost: false });
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await tq.stats()).toMatchObject({ processed: 10, inflight: 0, ticks: 0 });
  });

  it("a lease found gone aborts running handlers and starts nothing more", async () => {
    const started: number[] = [];
    let reason = "";
    const tq = h.make({
      wait: async (args: [number], ctx) => {
        started.push(args[0]);
        // another tick's resurrector would now own this tick's jobs
        await h.redis.del(`${h.prefix}tick:${(await h.redis.hkeys(`${h.prefix}ticks`))[0]}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 5_000);
          ctx.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
        });
        reason = String((ctx.signal.reason as Error).message);
        throw ctx.signal.reason;
      },
    });
    await tq.enqueueBulk(Array.from({ length: 5 }, (_, i) => ({ name: "wait", args: [i] })));
    const report = await tq.tick({ batch: 5, concurrency: 1, leaseMs: 300 });
    expect(report.leaseLost).toBe(true);
    expect(started).toEqual([0]);
    expect(reason).toMatch(/lease lost/);
    expect(report.durationMs).toBeLessThan(2_000);
    // nothing was lost: the jobs are back in the queue (the gone lease had no resurrector here)
    const left = await h.redis.lrange(`${h.prefix}queue:default`, 0, -1);
    expect(left.map((j) => JSON.parse(j).args[0]).sort()).toEqual([0, 1, 2, 3, 4]);
  });
});
