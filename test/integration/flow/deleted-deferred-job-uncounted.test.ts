// stats().flow[name].deferred counts the jobs a rate limit pushed to later
// and that are not yet due: once such a job is deleted (tq.jobs.delete,
// deleteAll("scheduled")) it is no longer counted (lib/flow/stats.lua,
// move.lua, clear.lua). Run over ioredis only, for speed.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

type Args = [tag: string];

describe.each(adapterCases.slice(0, 1))("a deferred job deleted, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "adv3-deferred-stat");

  const setUp = async () => {
    const ran: string[] = [];
    const tq = h.make({
      limited: {
        perform: ([tag]: Args) => void ran.push(tag),
        rateLimit: { key: () => "r", limit: 1, periodMs: 60_000 },
      },
    });
    await tq.enqueue("limited", ["a"]);
    const b = await tq.enqueue("limited", ["b"]);
    await tq.tick({ batch: 10, budgetMs: 1_000 });
    expect(ran).toEqual(["a"]);
    expect((await tq.stats()).flow.limited!.deferred).toBe(1);
    return { tq, b };
  };

  it("tq.jobs.delete: no longer counted as deferred", async () => {
    const { tq, b } = await setUp();
    await tq.jobs.delete(b);
    expect((await tq.stats()).scheduled).toBe(0);
    expect((await tq.stats()).flow.limited).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
  });

  it('deleteAll("scheduled"): no longer counted as deferred', async () => {
    const { tq } = await setUp();
    expect(await tq.jobs.deleteAll("scheduled")).toBe(1);
    expect((await tq.stats()).flow.limited).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
  });
});
