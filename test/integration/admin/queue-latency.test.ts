// Queue latency (lib/queues/measure-latency.lua): stats().latency and
// tq.queues.list() say, per queue, how long the job that runs next has
// waited since it was enqueued — the oldest one, not the newest — and 0
// for an empty queue; read when asked, so nothing is written per job.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { snapshot } from "../../helpers/snapshot.js";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.each(adapterCases)("queue latency over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "latency");

  it("is the age of the oldest waiting job of each queue, 0 when it is empty, in stats() and queues.list()", async () => {
    const tickq = h.make({ work: () => {} }, { queues: ["default", "mail", "low"] });
    const before = Date.now();
    await tickq.enqueue("work", [1]);
    await sleep(400);
    // Newer jobs behind the oldest do not lower its queue's latency.
    await tickq.enqueue("work", [2]);
    await tickq.enqueue("work", [3], { queue: "mail" });
    await sleep(150);
    await tickq.queues.pause("low");
    const stats = await tickq.stats();
    const listed = await tickq.queues.list();
    const after = Date.now();
    expect(stats.latency.default).toBeGreaterThanOrEqual(549);
    expect(stats.latency.default).toBeLessThanOrEqual(after - before + 1);
    expect(stats.latency.mail).toBeGreaterThanOrEqual(149);
    expect(stats.latency.mail).toBeLessThan(stats.latency.default! - 300);
    const byName = Object.fromEntries(listed.map((q) => [q.name, q.latencyMs]));
    expect(byName.default).toBeGreaterThanOrEqual(stats.latency.default!);
    expect(byName.mail).toBeGreaterThanOrEqual(stats.latency.mail!);
    expect(byName.low).toBe(0);
    // Once drained, nothing waits: 0; low, declared and never sent a job, is listed all the same.
    await tickq.tick();
    expect((await tickq.stats()).latency).toEqual({ default: 0, mail: 0, low: 0 });
  });

  it("reads only: measuring latency changes nothing in Redis", async () => {
    const tickq = h.make({ work: () => {} });
    await tickq.enqueueBulk([
      { name: "work", args: [1] },
      { name: "work", args: [2] },
    ]);
    const before = await snapshot(h.redis, h.prefix);
    await tickq.stats();
    await tickq.queues.list();
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
  });
});
