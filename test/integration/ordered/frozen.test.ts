// A tick whose event loop froze past its lease while running an id: another
// tick (its own process) takes the id over with a larger fence, and the
// frozen tick, when it wakes, can neither ack nor requeue over the new
// holder. The id ends run by the new holder, nothing lost, nothing doubled.
import { afterEach, describe, expect, it } from "vitest";
import type { OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { spawnTickChild, waitReady, type TickChild } from "../../helpers/tick-children.js";
import { freezeUntilListed } from "../../helpers/freeze-until.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("a frozen ordered tick over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-frozen");
  let other: TickChild | undefined;
  afterEach(async () => other?.kill());

  it("cannot ack over the new holder, whose fence is larger", async () => {
    other = spawnTickChild("ordered-child.ts", adapterCase, h.redis, h.prefix, {
      MODE: "hold",
      RELEASE: "1", // it holds the id until the test has looked (test:release), however slow the machine
      LEASE_MS: "5000",
      BUDGET_MS: "600000", // its run outlasts no budget, however long the test takes to look
    });
    await waitReady(h.redis, h.prefix, 1);
    let frozenFence = 0;
    const tq = h.make(
      {},
      {
        ordered: {
          work: {
            perform: async (_id: string, _payloads: unknown[], ctx: OrderedContext) => {
              frozenFence = ctx.fence;
              await h.redis.set(`${h.prefix}test:go`, "1"); // the other process starts ticking
              // Frozen past the 400 ms lease until the other tick took the id over and ran it: not for a
              // fixed time, which a loaded machine outlasted before the other process ran (its run
              // never came, the late ack found its own token).
              freezeUntilListed(h.redis, `${h.prefix}test:runs`, 120_000);
            },
          },
        },
      },
    );
    await tq.enqueueOrderedBulk([
      { name: "work", id: "a", payload: "v1", score: 1 },
      { name: "work", id: "a", payload: "v2", score: 2 },
    ]);
    const frozen = await tq.tick({ leaseMs: 400, concurrency: 1 });
    expect(frozen).toMatchObject({ fetched: 1, succeeded: 1 }); // it ran, but its ack found another token

    // The other tick holds "a" now, under its own token; the late success touched nothing.
    const [run] = (await h.redis.lrange(`${h.prefix}test:runs`, 0, -1)).map(
      (r) => JSON.parse(r) as { fence: number; payloads: string[] },
    );
    expect(run, other.stderr()).toBeDefined();
    expect(run!.fence).toBeGreaterThan(frozenFence);
    expect(run!.payloads).toEqual(["v1", "v2"]);
    const holders = await Promise.all(
      (await h.redis.keys(`${h.prefix}oinproc:*`)).map((key) => h.redis.hget(key, "work a")),
    );
    expect(holders.filter(Boolean)).toEqual([expect.stringMatching(new RegExp(`^\\S+ ${run!.fence} `))]);
    expect(await h.redis.zrange(`${h.prefix}o:work:p:a`, "0", "-1")).toEqual(['"v1"', '"v2"']); // the run's payloads, kept
    expect((await tq.stats()).ordered.work).toEqual({ waiting: 0, running: 1, payloads: 0, dead: 0 });

    // The new holder finishes: the id is done once, nothing left behind.
    await h.redis.set(`${h.prefix}test:release`, "1");
    while ((await tq.stats()).ordered.work!.running > 0) await sleep(50);
    expect((await tq.stats()).ordered.work).toEqual({ waiting: 0, running: 0, payloads: 0, dead: 0 });
    expect(await h.redis.llen(`${h.prefix}test:runs`)).toBe(1);
  });
});
