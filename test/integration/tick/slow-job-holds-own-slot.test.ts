// The continuous pipeline: a slow job holds its own slot, never the others'.
// Jobs of the next batch start while a job of the previous one still runs,
// fetched jobs waiting for a slot stay bounded, and acks ride on fetches.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("the pipeline over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "pipeline");

  it("refills free slots with the next batch while a slow job of the last batch still runs", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let releasedBy = "timeout";
    const started: number[] = [];
    const tq = h.make({
      work: async (args: [number]) => {
        started.push(args[0]);
        if (args[0] === 0) await Promise.race([held, sleep(5_000)]);
        // job 25 is in the third batch of 10: reachable only if slots refill past job 0's batch
        if (args[0] === 25) {
          releasedBy = "a job of a later batch";
          release();
        }
      },
    });
    await tq.enqueueBulk(Array.from({ length: 40 }, (_, i) => ({ name: "work", args: [i] })));
    const report = await tq.tick({ batch: 10, concurrency: 3 });
    expect(releasedBy).toBe("a job of a later batch");
    expect(report).toMatchObject({ succeeded: 40, fetched: 40, more: false });
    expect(started.indexOf(25)).toBeGreaterThan(0);
  });

  it("holds at most 2 batches fetched but not started, all in its inproc list", async () => {
    const waiting: number[] = [];
    let tickId = "";
    const tq = h.make({
      work: async (_args: [number]) => {
        if (!tickId) tickId = (await h.redis.hkeys(`${h.prefix}ticks`))[0]!;
        const listed = await h.redis.llen(`${h.prefix}inproc:${tickId}:default`);
        waiting.push(listed);
        await sleep(2);
      },
    });
    await tq.enqueueBulk(Array.from({ length: 300 }, (_, i) => ({ name: "work", args: [i] })));
    const report = await tq.tick({ batch: 20, concurrency: 4 });
    expect(report.succeeded).toBe(300);
    // in the list: running (≤ 4) + waiting for a slot (≤ 40) + finished, not yet acked (< 20 + 4)
    expect(Math.max(...waiting)).toBeLessThanOrEqual(4 + 40 + 24);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(0);
  });

  it("costs about one round trip per batch on slow jobs too", async () => {
    const tq = h.make({ work: async (_args: [number]) => sleep(Math.random() * 5) });
    await tq.enqueueBulk(Array.from({ length: 400 }, (_, i) => ({ name: "work", args: [i] })));
    const report = await tq.tick({ batch: 100, concurrency: 20 });
    expect(report.succeeded).toBe(400);
    expect(report.roundTrips / report.succeeded).toBeLessThanOrEqual(0.02);
  });

  it("at the deadline, fetched jobs go back to the head of their queue in order", async () => {
    const ran: number[] = [];
    const tq = h.make({
      work: async (args: [number]) => {
        ran.push(args[0]);
        await sleep(20);
      },
    });
    await tq.enqueueBulk(Array.from({ length: 60 }, (_, i) => ({ name: "work", args: [i] })));
    const report = await tq.tick({ batch: 10, concurrency: 2, budgetMs: 120 });
    expect(report.more).toBe(true);
    expect(report.succeeded + report.requeued).toBe(report.fetched);
    const left = (await h.redis.lrange(`${h.prefix}queue:default`, 0, -1)).map((j) => JSON.parse(j).args[0]).reverse();
    expect(left).toEqual(Array.from({ length: 60 - ran.length }, (_, i) => i + ran.length));
    expect((await tq.stats()).inflight).toBe(0);
  });
});
