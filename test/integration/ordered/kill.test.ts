// A tick SIGKILLed while it runs ordered ids loses nothing: once its lease
// expires, the ids come back with every payload (those it ran and those
// that arrived meanwhile), merged, and run again with a larger fence; the
// id is a suspect, and a death while it runs alone is counted.
import { describe, expect, it } from "vitest";
import type { OrderedContext } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { spawnTickChild, waitLeasesGone } from "../../helpers/tick-children.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("ordered ids of a killed tick over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "ordered-kill");

  it("SIGKILL mid-execution: after the lease, every id runs again with all its payloads and a larger fence", async () => {
    const runs = new Map<string, { payloads: unknown[]; fence: number }>();
    const tq = h.make(
      {},
      {
        ordered: {
          work: {
            perform: (id: string, payloads: unknown[], ctx: OrderedContext) =>
              void runs.set(id, { payloads, fence: ctx.fence }),
          },
        },
      },
    );
    await tq.enqueueOrderedBulk(
      ["a", "b", "c"].flatMap((id) => [1, 2].map((v) => ({ name: "work" as const, id, payload: { v }, score: v }))),
    );
    const child = spawnTickChild("ordered-child.ts", adapterCase, h.redis, h.prefix, { MODE: "hang", LEASE_MS: "600" });
    for (let i = 0; i < 300 && (await h.redis.llen(`${h.prefix}test:started`)) < 3; i++) await sleep(50);
    expect(await h.redis.llen(`${h.prefix}test:started`), child.stderr()).toBe(3);
    const before = (await h.redis.lrange(`${h.prefix}test:started`, 0, -1)).map(
      (s) => JSON.parse(s) as { id: string; fence: number },
    );
    await tq.enqueueOrdered("work", { id: "a", payload: { v: 3 }, score: 3 }); // arrives while the doomed run holds "a"
    await child.kill();

    expect((await tq.stats()).ordered.work).toEqual({ waiting: 1, running: 3, payloads: 1, dead: 0 });
    expect(await tq.tick()).toMatchObject({ resurrected: 0, fetched: 0 }); // the lease has not expired yet
    await waitLeasesGone(h.redis, h.prefix);
    const report = await tq.tick();
    expect(report).toMatchObject({ resurrected: 3, succeeded: 3, dead: 0 });
    expect(runs.get("a")!.payloads).toEqual([{ v: 1 }, { v: 2 }, { v: 3 }]);
    expect(runs.get("b")!.payloads).toEqual([{ v: 1 }, { v: 2 }]);
    for (const { id, fence } of before) expect(runs.get(id)!.fence).toBeGreaterThan(fence);
    expect(await tq.stats()).toMatchObject({
      ticks: 0,
      ordered: { work: { waiting: 0, running: 0, payloads: 0, dead: 0 } },
    });
    expect(await h.redis.exists(`${h.prefix}o:work:resurrections`)).toBe(0); // cleared by the success
  });

  it("an id left by a dead tick is a suspect; deaths while it runs alone are counted, and it ends dead (poison)", async () => {
    const tq = h.make({}, { maxResurrections: 2, ordered: { work: { perform: () => {} } } });
    await tq.enqueueOrdered("work", { id: "poison", payload: 1 });
    const idle = h.make({}, { maxResurrections: 2, queues: ["elsewhere"] }); // resurrects, serves no ordered name
    // The first death proves nothing (it ran beside others, or was only
    // fetched): a suspect. The next ones, run alone, are counted.
    for (let kill = 0; kill <= 2; kill++) {
      await h.redis.del(`${h.prefix}test:started`);
      // A lease long enough that a loaded machine still starts the handler within it.
      const child = spawnTickChild("ordered-child.ts", adapterCase, h.redis, h.prefix, {
        MODE: "hang",
        LEASE_MS: "500",
      });
      for (let i = 0; i < 300 && (await h.redis.llen(`${h.prefix}test:started`)) < 1; i++) await sleep(50);
      expect(await h.redis.llen(`${h.prefix}test:started`), child.stderr()).toBe(1);
      await child.kill();
      // Not a fixed wait: over HTTP an extend the child sent before its kill may reach Redis after it.
      await waitLeasesGone(h.redis, h.prefix);
      expect(await idle.tick()).toMatchObject({ resurrected: 1 });
      expect(await h.redis.hget(`${h.prefix}o:work:suspects`, "poison")).toBe("1");
      expect(await h.redis.hget(`${h.prefix}o:work:resurrections`, "poison")).toBe(kill === 0 ? null : String(kill));
    }
    expect(await tq.tick()).toMatchObject({ fetched: 1, dead: 1, succeeded: 0 });
    expect((await tq.stats()).ordered.work).toEqual({ waiting: 0, running: 0, payloads: 0, dead: 1 });
  });
});
