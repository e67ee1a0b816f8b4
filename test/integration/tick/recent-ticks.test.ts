// tq.ticks.recent(): the last ticks that finished, newest first, each with
// the counts its TickReport had (what it did), read back from the list its
// finish call wrote. A tick with nothing to do is listed too, saying so.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("recent ticks over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "recent");

  it("lists the last ticks newest first with what each did, as its report counted it", async () => {
    const tq = h.make({
      ok: () => {},
      bad: {
        retry: false,
        perform: () => {
          throw new Error("no");
        },
      },
    });
    await tq.enqueueBulk([
      { name: "ok", args: [] },
      { name: "ok", args: [] },
      { name: "bad", args: [] },
    ]);
    // Sidekiq's `dead: false`: out of retries, dropped and counted as discarded.
    const dropped = { class: "bad", args: [], jid: "dropped", queue: "default", retry: false, dead: false };
    await h.redis.lpush(`${h.prefix}queue:default`, JSON.stringify(dropped));
    const busy = await tq.tick({ budgetMs: 5_000 });
    const idle = await tq.tick({ budgetMs: 5_000 });
    const [last, before] = await tq.ticks.recent();
    expect(last).toMatchObject({ id: idle.tickId, counts: {}, leaseLost: false, more: false });
    expect(before).toMatchObject({
      id: busy.tickId,
      counts: { fetched: 4, succeeded: 2, failed: 2, dead: 1, discarded: 1 },
      leaseLost: false,
    });
    expect(before!.durationMs).toBeLessThanOrEqual(busy.durationMs);
    expect(last!.finishedAt).toBeGreaterThanOrEqual(before!.finishedAt);
  });
});
