// SIGKILL the tick that holds a key: while its lease lives the key stays
// held (a duplicate waits), and once the lease ran out one tick resurrects
// the job, frees the key, and runs it exactly once more, before its parked
// duplicate (the older job first: else its stale write would land last);
// the duplicate runs after it, not beside it; nothing runs again after,
// and nothing stays held.
import { afterEach, describe, expect, it } from "vitest";
import { flowJobs, type FlowArgs } from "../../fixtures/flow-jobs.js";
import { adapterCases } from "../../helpers/adapters.js";
import { readStarts } from "../../helpers/flow-ticks.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";
import { spawnTickChild, type TickChild } from "../../helpers/tick-children.js";

const LEASE_MS = 1_500;

describe.each(adapterCases)("the tick holding a key, SIGKILLed, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-kill-holder");
  let child: TickChild | undefined;
  afterEach(async () => child?.kill());

  it("within one lease: resurrected, the key freed, run exactly once more", async () => {
    const runs: string[] = [];
    let live = 0;
    let overlapped = false;
    const tq = h.make(
      flowJobs(() => async (_args: FlowArgs, ctx) => {
        overlapped ||= ++live > 1;
        runs.push(ctx.jid);
        await sleep(20);
        live--;
      }),
    );
    const [held, waiting] = await tq.enqueueBulk(
      [0, 1].map(() => ({
        name: "exclusive" as const,
        args: ["k", 0] as FlowArgs,
        unique: "while-executing" as const,
      })),
    );
    child = spawnTickChild("flow-child.ts", adapterCase, h.redis, h.prefix, {
      MODE: "hang",
      LEASE_MS: String(LEASE_MS),
    });
    for (let i = 0; i < 300 && (await readStarts(h)).length < 1; i++) await sleep(50);
    expect(
      (await readStarts(h)).map((s) => s.jid),
      child.stderr(),
    ).toEqual([held]);
    await child.kill();

    const options = { leaseMs: 1_000, budgetMs: 2_000 };
    expect(await tq.tick(options)).toMatchObject({ resurrected: 0, succeeded: 0 }); // the dead tick's lease still holds the key
    expect(runs).toEqual([]);
    await sleep(LEASE_MS + 100);
    expect(await tq.tick(options)).toMatchObject({ resurrected: 1 });
    expect(runs[0]).toBe(held); // the resurrected job comes back first
    for (let i = 0; i < 5 && runs.length < 2; i++) await tq.tick(options); // its duplicate waited on the key: it may take the next tick
    expect(runs).toEqual([held, waiting]);
    expect(overlapped).toBe(false);
    expect(await tq.tick(options)).toMatchObject({ fetched: 0, resurrected: 0 });
    expect(runs).toHaveLength(2);
    expect((await tq.stats()).flow.exclusive).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
  });

  it("the dead holder's job runs before a duplicate queued in another queue", async () => {
    // The killed tick serves only `first`; the duplicate waits in `default`,
    // never parked. The next tick's begin resurrects before it fetches, so
    // the older job is back (and its slot free) before the duplicate is met.
    const runs: string[] = [];
    const tq = h.make(
      flowJobs(() => (_args: FlowArgs, ctx) => void runs.push(ctx.jid)),
      { queues: ["first", "default"] },
    );
    const held = await tq.enqueue("exclusive", ["k", 0] as FlowArgs, { unique: "while-executing", queue: "first" });
    const later = await tq.enqueue("exclusive", ["k", 0] as FlowArgs, { unique: "while-executing" }); // queued: the key is free yet
    child = spawnTickChild("flow-child.ts", adapterCase, h.redis, h.prefix, {
      MODE: "hang",
      LEASE_MS: String(LEASE_MS),
      QUEUES: "first",
    });
    for (let i = 0; i < 300 && (await readStarts(h)).length < 1; i++) await sleep(50);
    expect(
      (await readStarts(h)).map((s) => s.jid),
      child.stderr(),
    ).toEqual([held]);
    await child.kill();
    await sleep(LEASE_MS + 100);
    for (let i = 0; i < 5 && runs.length < 2; i++) await tq.tick({ leaseMs: 1_000, budgetMs: 2_000 });
    expect(runs).toEqual([held, later]);
  });
});
