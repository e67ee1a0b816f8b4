// maxPayloads and a tick SIGKILLed mid-run (lib/ordered/fetch-ids.lua): the payloads past the cap wait
// behind the run, so once the dead tick's lease ends its run comes back whole, merged with the rest and
// with arrivals, in score order; nothing is lost, no run of an id overlaps another, fences grow, and
// the sizes end at zero.
import { describe, expect, it } from "vitest";
import type { OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";
import { spawnTickChild } from "../../helpers/tick-children.js";

interface Run {
  id: string;
  payloads: unknown[];
  fence: number;
}

const idle = { waiting: 0, running: 0, payloads: 0, dead: 0 };

describe.each(adapterCases)("ordered maxPayloads and a killed tick over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-max-payloads-kill");
  const ofId = (runs: Run[], id: string) => runs.filter((r) => r.id === id);
  const increasing = (xs: number[]) => xs.every((x, i) => i === 0 || x > xs[i - 1]!);

  it("a tick SIGKILLed mid-run with payloads left: after its lease the run comes back whole, nothing lost, no overlap", async () => {
    const runs: Run[] = [];
    const live = new Set<string>();
    const overlaps: string[] = [];
    const perform = async (id: string, payloads: unknown[], ctx: OrderedContext) => {
      if (live.has(id)) overlaps.push(id);
      live.add(id);
      runs.push({ id, payloads, fence: ctx.fence });
      await sleep(1);
      live.delete(id);
    };
    const tq = h.make({}, { ordered: { work: { perform, maxPayloads: 2 } } });
    await tq.enqueueOrderedBulk([
      ...[1, 2, 3, 4, 5].map((v) => ({ name: "work" as const, id: "a", payload: { v }, score: v })),
      { name: "work" as const, id: "b", payload: { v: 1 }, score: 1 },
    ]);
    const child = spawnTickChild("ordered-child.ts", adapterCase, h.redis, h.prefix, {
      MODE: "hang",
      LEASE_MS: "600",
      MAX_PAYLOADS: "2",
    });
    for (let i = 0; i < 300 && (await h.redis.llen(`${h.prefix}test:started`)) < 2; i++) await sleep(50);
    expect(await h.redis.llen(`${h.prefix}test:started`), child.stderr()).toBe(2);
    const before = (await h.redis.lrange(`${h.prefix}test:started`, 0, -1)).map(
      (s) => JSON.parse(s) as { id: string; fence: number; payloads: unknown[] },
    );
    expect(before.find((r) => r.id === "a")!.payloads).toEqual([{ v: 1 }, { v: 2 }]);
    await tq.enqueueOrdered("work", { id: "a", payload: { v: 6 }, score: 6 }); // arrives while the doomed run holds "a"
    await child.kill();
    expect((await tq.stats()).ordered.work).toEqual({ ...idle, waiting: 1, running: 2, payloads: 4 });
    // Ticks until the lease has ended and both ids ran out (no time bound of its own: a loaded machine
    // only takes more ticks).
    for (let i = 0; i < 600 && runs.length < 4; i++) if ((await tq.tick()).fetched === 0) await sleep(100);
    expect(ofId(runs, "a").map((r) => r.payloads)).toEqual([
      [{ v: 1 }, { v: 2 }],
      [{ v: 3 }, { v: 4 }],
      [{ v: 5 }, { v: 6 }],
    ]);
    expect(ofId(runs, "b").map((r) => r.payloads)).toEqual([[{ v: 1 }]]);
    for (const { id, fence } of before) expect(ofId(runs, id)[0]!.fence).toBeGreaterThan(fence);
    expect(increasing(ofId(runs, "a").map((r) => r.fence))).toBe(true);
    expect(overlaps).toEqual([]);
    expect(await tq.stats()).toMatchObject({ ticks: 0, ordered: { work: idle } });
  });
});
