// A job fetched by a tick whose slots are all busy with long jobs does not
// wait for them: the tick fetches no more than its slots can start soon, and
// hands back what it holds, so another tick runs it meanwhile.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

/** A gate the long jobs wait on: opened by the short jobs, or after `ms` so a failing run ends. */
function gate(ms: number) {
  let open = () => {};
  let openedBy = "the time limit";
  const opened = new Promise<void>((resolve) => (open = resolve));
  const timer = setTimeout(open, ms);
  return {
    wait: () => opened,
    openedBy: () => openedBy,
    open(by: string) {
      openedBy = by;
      clearTimeout(timer);
      open();
    },
  };
}

describe.each(adapterCases)("fetched jobs behind busy slots over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "prefetch");

  it("jobs fetched behind five long jobs are run by a second tick while the long jobs still run", async () => {
    const longDone = gate(8_000);
    const short = new Set<number>();
    let longStarted = 0;
    const jobs = {
      long: async (_args: []) => {
        longStarted++;
        await longDone.wait();
      },
      short: async ([i]: [number]) => {
        short.add(i);
        if (short.size === 15) longDone.open("the short jobs");
      },
    };
    const a = h.make(jobs);
    const b = h.make(jobs);
    await a.enqueueBulk([
      ...Array.from({ length: 5 }, () => ({ name: "long" as const, args: [] as [] })),
      ...Array.from({ length: 15 }, (_, i) => ({ name: "short" as const, args: [i] as [number] })),
    ]);
    const first = a.tick({ concurrency: 5, batch: 10, budgetMs: 15_000 });
    while (longStarted < 5) await sleep(5); // the first tick runs the long jobs
    let second = 0;
    while (short.size < 15 && longDone.openedBy() === "the time limit") {
      second += (await b.tick({ concurrency: 5, batch: 10, budgetMs: 2_000 })).succeeded;
      await sleep(20);
    }
    const report = await first;
    expect(longDone.openedBy()).toBe("the short jobs");
    expect(second).toBe(15);
    expect(report.succeeded).toBe(5);
    expect(report.requeued).toBeGreaterThan(0); // what it fetched beyond its slots went back
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(0);
  });

  it("with one slot and a batch of one, the oldest job waiting is the next another tick runs", async () => {
    const longDone = gate(6_000);
    const order: number[] = [];
    let longStarted = false;
    const jobs = {
      long: async (_args: []) => {
        longStarted = true;
        await longDone.wait();
      },
      short: async ([i]: [number]) => {
        order.push(i);
        if (order.length === 4) longDone.open("the short jobs");
      },
    };
    const a = h.make(jobs);
    const b = h.make(jobs);
    await a.enqueueBulk([
      { name: "long", args: [] },
      ...[1, 2, 3, 4].map((i) => ({ name: "short" as const, args: [i] as [number] })),
    ]);
    const first = a.tick({ concurrency: 1, batch: 1, budgetMs: 10_000 });
    while (!longStarted) await sleep(5);
    while (order.length < 4 && longDone.openedBy() === "the time limit") {
      await b.tick({ concurrency: 1, batch: 1, budgetMs: 2_000 });
      await sleep(20);
    }
    const report = await first;
    expect(longDone.openedBy()).toBe("the short jobs");
    expect(order).toEqual([1, 2, 3, 4]);
    expect(report.succeeded).toBe(1);
  });
});

describe.each(adapterCases)("what a tick that handed jobs back reports over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "prefetch-more");

  /** A long job that ends once its queue holds `queued` jobs again (the hand-back landed), or after 8 s. */
  function longUntilQueued(queued: number) {
    return async (_args: []) => {
      for (let i = 0; i < 800 && (await h.redis.llen(`${h.prefix}queue:default`)) < queued; i++) await sleep(10);
    };
  }

  it("a job it handed back and then fetched and ran itself leaves no more work", async () => {
    const ran: number[] = [];
    const tq = h.make({ long: longUntilQueued(2), short: async ([i]: [number]) => void ran.push(i) });
    await tq.enqueueBulk([
      { name: "long", args: [] },
      ...[1, 2].map((i) => ({ name: "short" as const, args: [i] as [number] })),
    ]);
    // It fetches the long job and short 1; short 1 waits behind the long job's slot and goes back.
    const report = await tq.tick({ concurrency: 1, batch: 2, budgetMs: 15_000 });
    expect(report).toMatchObject({ succeeded: 3, requeued: 1, more: false });
    expect(ran).toEqual([1, 2]);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(0);
  });

  it("a job it handed back after its queues looked empty, it fetches again once a slot frees", async () => {
    const ran: number[] = [];
    const tq = h.make({ long: longUntilQueued(1), short: async ([i]: [number]) => void ran.push(i) });
    await tq.enqueueBulk([
      { name: "long", args: [] },
      { name: "short", args: [1] },
    ]);
    // Its one fetch came back short (2 of 3): the queue looked empty before the short job went back.
    const report = await tq.tick({ concurrency: 1, batch: 3, budgetMs: 15_000 });
    expect(report).toMatchObject({ succeeded: 2, requeued: 1, more: false });
    expect(ran).toEqual([1]);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(0);
  });
});
