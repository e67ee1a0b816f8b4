// Priority within a queue: a higher priority starts first, equal priorities
// keep FIFO (plain jobs are priority 0), and the queues' strict order is
// unchanged: users rely on "urgent first" without giving up the order they
// enqueued in.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("priority over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "priority");

  it("starts higher priorities first and keeps FIFO among equal ones, plain jobs as priority 0", async () => {
    const ran: string[] = [];
    const tq = h.make({ job: (args: [string]) => void ran.push(args[0]) });
    const priorities = [0, 5, -3, 5, 0, 1000, -3, -1000, 1, 0];
    await tq.enqueueBulk(
      priorities.map((priority, i) => ({ name: "job" as const, args: [`${priority}/${i}`], priority })),
    );
    await tq.tick({ batch: 3, concurrency: 1 });
    const expected = priorities
      .map((priority, i) => ({ priority, i }))
      .sort((a, b) => b.priority - a.priority || a.i - b.i)
      .map(({ priority, i }) => `${priority}/${i}`);
    expect(ran).toEqual(expected);
  });

  it("orders by priority across separate enqueues and batches", async () => {
    const ran: number[] = [];
    const tq = h.make({ job: (args: [number]) => void ran.push(args[0]) });
    for (let i = 0; i < 20; i++) await tq.enqueue("job", [i], { priority: i % 4 });
    await tq.tick({ batch: 5, concurrency: 1 });
    const expected = [3, 2, 1, 0].flatMap((p) => Array.from({ length: 5 }, (_, k) => p + 4 * k));
    expect(ran).toEqual(expected);
  });

  it("takes the default priority from the job definition, and enqueue's option overrides it", async () => {
    const ran: string[] = [];
    const tq = h.make({
      low: { perform: () => void ran.push("low"), priority: -1 },
      high: { perform: () => void ran.push("high"), priority: 7 },
      plain: () => void ran.push("plain"),
    });
    await tq.enqueue("low", []);
    await tq.enqueue("plain", []);
    await tq.enqueue("high", []);
    await tq.enqueue("low", [], { priority: 9 });
    await tq.tick({ concurrency: 1 });
    expect(ran).toEqual(["low", "high", "plain", "low"]);
  });

  it("keeps the queues' strict order: a high priority in a later queue waits for the earlier queue", async () => {
    const ran: string[] = [];
    const tq = h.make({ job: (_a: unknown[], ctx) => void ran.push(ctx.queue) }, { queues: ["first", "second"] });
    await tq.enqueue("job", [], { queue: "second", priority: 1000 });
    await tq.enqueue("job", [], { queue: "first" });
    await tq.enqueue("job", [], { queue: "first", priority: -5 });
    await tq.tick({ concurrency: 1, batch: 1 });
    expect(ran).toEqual(["first", "first", "second"]);
  });

  it("leaves plain jobs in Sidekiq's list and keeps only prioritized ones apart", async () => {
    const tq = h.make({ job: () => {} });
    await tq.enqueue("job", ["plain"]);
    await tq.enqueue("job", ["urgent"], { priority: 3 });
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(1);
    expect(await h.redis.zcard(`${h.prefix}prio:default`)).toBe(1);
    expect((await tq.stats()).queues.default).toBe(2);
  });
});
