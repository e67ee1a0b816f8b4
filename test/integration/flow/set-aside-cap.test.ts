// More duplicates of a busy key in front of plain jobs than one fetch call
// sets aside (1,000 a call): one tick must still reach the plain jobs (or at
// least say `more`, so a caller ticks again at once). A tick that ends
// `more: false` after parking its first thousand leaves the plain jobs for
// the next cron: with a tick a minute, 2,500 duplicates in front would hold
// them back three minutes — starvation by another name.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { copyQueued } from "../../helpers/flow-queued.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

type Args = [key: string];

describe.each(adapterCases)("more duplicates of a busy key than a fetch sets aside over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-aside-cap");

  it("one tick still runs the plain jobs behind them", async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const ran: string[] = [];
    const jobs = {
      // The job in queue "hold" holds the key until the test releases it.
      sync: {
        uniqueKey: ([key]: Args) => key,
        perform: ([key]: Args, ctx: { queue: string }) => (ctx.queue === "hold" ? released : void ran.push(key)),
      },
      plain: ([key]: Args) => void ran.push(key),
    };
    const holder = h.make(jobs, { queues: ["hold"] });
    const tq = h.make(jobs);
    // Queued while the key is free (by another door than enqueue, which would park them behind the first),
    // so they sit in the queue; then the holder takes the key.
    await holder.enqueue("sync", ["busy"], { queue: "hold", unique: "while-executing" });
    await tq.enqueue("sync", ["busy"], { unique: "while-executing" });
    await copyQueued(h, "default", 2_499);
    await tq.enqueueBulk(Array.from({ length: 10 }, (_, i) => ({ name: "plain" as const, args: [`p${i}`] as Args })));
    const holding = holder.tick({ batch: 1, concurrency: 1, budgetMs: 20_000, leaseMs: 5_000 });
    try {
      while ((await holder.stats()).inflight === 0) await sleep(10);
      const report = await tq.tick({ batch: 10, concurrency: 10, budgetMs: 5_000 });
      expect({ succeeded: report.succeeded, more: report.more || report.succeeded === 10 }).toEqual({
        succeeded: 10,
        more: true,
      });
      expect(ran.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `p${i}`).sort());
      expect((await tq.stats()).flow.sync!.waiting).toBe(2_500);
    } finally {
      release();
      await holding;
    }
  });
});
