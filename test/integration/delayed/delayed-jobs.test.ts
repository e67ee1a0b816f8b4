import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("schedule over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "schedule");

  it("runs a delayed job only once it is due", async () => {
    const ran: string[] = [];
    const tq = h.make({ later: (args: [string]) => void ran.push(args[0]) });
    await tq.enqueue("later", ["soon"], { delayMs: 300 });
    await tq.enqueue("later", ["much later"], { delayMs: 600_000 });
    expect((await tq.tick()).scheduled).toBe(0);
    expect(ran).toEqual([]);
    await sleep(350);
    const report = await tq.tick();
    expect(report).toMatchObject({ scheduled: 1, succeeded: 1 });
    expect(ran).toEqual(["soon"]);
    expect(await h.redis.zcard(`${h.prefix}schedule`)).toBe(1);
  });

  it("moves due jobs in batches, and reports when more are due", async () => {
    const tq = h.make({ due: () => {} });
    await tq.enqueueBulk(Array.from({ length: 25 }, () => ({ name: "due", args: [], delayMs: 50 })));
    await sleep(80);
    const first = await tq.tick({ scheduleLimit: 10, budgetMs: 0 });
    // housekeeping beyond begin is allowed a quarter of the budget: none here
    expect(first.scheduled).toBe(10);
    expect(first.more).toBe(true);
    const second = await tq.tick({ scheduleLimit: 10 });
    expect(second.scheduled).toBe(15);
    expect((await tq.stats()).scheduled).toBe(0);
  });

  it("pushes a job whose `at` is past straight to its queue", async () => {
    const tq = h.make({ q: () => {} });
    await tq.enqueue("q", [], { at: new Date(Date.now() - 60_000) });
    expect(await h.redis.zcard(`${h.prefix}schedule`)).toBe(0);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(1);
  });

  it("moves a due job to the queue its JSON names", async () => {
    const tq = h.make({ q: () => {} }, { queues: ["mail"] });
    await tq.enqueue("q", [], { queue: "mail", delayMs: 50 });
    await sleep(80);
    const report = await tq.tick();
    expect(report).toMatchObject({ scheduled: 1, succeeded: 1 });
  });
});
