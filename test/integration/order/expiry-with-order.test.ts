// Expiry holds for jobs with a priority or a group too: they wait in their
// queue's sorted sets, and the fetch that takes one past its expiry records
// it as expired and never starts it, as from the plain list, then fills its
// batch with the next jobs in order.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("expiry of jobs with a priority or a group over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "order-expiry");

  it("an expired prioritized or grouped job is recorded expired and never runs; the rest run in order", async () => {
    const ran: string[] = [];
    const tq = h.make({ work: ([tag]: [string]) => void ran.push(tag) });
    const urgent = await tq.enqueue("work", ["urgent-late"], { priority: 9, expiresInMs: 20, kick: false });
    const grouped = await tq.enqueue("work", ["grouped-late"], { group: "g", expiresInMs: 20, kick: false });
    await tq.enqueue("work", ["high"], { priority: 5, kick: false });
    await tq.enqueue("work", ["g1"], { group: "g", kick: false });
    await tq.enqueue("work", ["plain"], { kick: false });
    await sleep(60);
    const report = await tq.tick({ batch: 2, concurrency: 1 });
    expect(report.expired).toBe(2);
    expect([...ran].sort()).toEqual(["g1", "high", "plain"]);
    expect(ran.indexOf("high")).toBeLessThan(ran.indexOf("plain"));
    expect((await tq.jobs.find(urgent))?.state).toBe("expired");
    expect((await tq.jobs.find(grouped))?.state).toBe("expired");
    expect((await tq.stats()).queues.default).toBe(0);
    expect(await h.redis.exists(`${h.prefix}groups:default`)).toBe(0);
  });
});
