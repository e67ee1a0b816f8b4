// Ordered ids and flow jobs draw on a tick's one pool of slots over its
// partitions (src/tick/slots.ts) as plain jobs do: never more handlers than
// `concurrency`, an ordered id never runs twice at once and each payload
// once, and a flow key drains at its limit within the tick while the other
// partitions keep the pool busy.
import { expect, it } from "vitest";
import { adapterCase, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describeOverAdapters([adapterCase("ioredis")], "ordered and flow jobs over partitions, over $name", (c) => {
  const h = useHarness(c, "part-ordered-flow");

  it("ordered ids run one run at a time each, every payload once, within concurrency", async () => {
    let running = 0;
    let most = 0;
    let overlaps = 0;
    const live = new Set<string>();
    const seen = new Map<string, number>();
    const tq = h.make(
      {
        plain: async (_args: [number]) => {
          most = Math.max(most, ++running);
          await sleep(15);
          running--;
        },
      },
      {
        partitions: 3,
        ordered: {
          idx: {
            perform: async (id: string, payloads: unknown[]) => {
              most = Math.max(most, ++running);
              if (live.has(id)) overlaps++;
              live.add(id);
              for (const p of payloads) seen.set(String(p), (seen.get(String(p)) ?? 0) + 1);
              // A payload arriving during the run waits and runs after it.
              if (payloads.every((p) => !String(p).includes("late")))
                await tq.enqueueOrdered("idx", { id, payload: `${id}-late` });
              await sleep(30);
              live.delete(id);
              running--;
            },
          },
        },
      },
    );
    await tq.enqueueBulk(Array.from({ length: 60 }, (_, i) => ({ name: "plain" as const, args: [i] as [number] })));
    for (let i = 0; i < 60; i++) await tq.enqueueOrdered("idx", { id: `id${i % 12}`, payload: `id${i % 12}-${i}` });
    for (let ticks = 0; ticks < 20; ticks++) {
      const report = await tq.tick({ budgetMs: 1_500, concurrency: 2, batch: 3 });
      if (!report.more) break;
    }
    expect(overlaps).toBe(0);
    expect(most).toBe(2);
    expect(seen.size).toBe(72);
    expect([...seen.values()].filter((n) => n !== 1)).toEqual([]);
    expect((await tq.stats()).ordered).toEqual({ idx: { waiting: 0, running: 0, payloads: 0, dead: 0 } });
  }, 60_000);

  it("a flow key drains in one tick while the other partitions keep the pool busy", async () => {
    let running = 0;
    let most = 0;
    let keyLive = 0;
    let keyMost = 0;
    let synced = 0;
    const tq = h.make(
      {
        sync: {
          perform: async (_args: [number]) => {
            most = Math.max(most, ++running);
            keyMost = Math.max(keyMost, ++keyLive);
            await sleep(30);
            keyLive--;
            running--;
            synced++;
          },
          concurrency: { key: () => "shared", limit: 1 },
        },
        busy: async (_args: [number]) => {
          most = Math.max(most, ++running);
          await sleep(100);
          running--;
        },
      },
      { partitions: 3 },
    );
    await tq.enqueueBulk(Array.from({ length: 60 }, (_, i) => ({ name: "busy" as const, args: [i] as [number] })));
    await tq.enqueueBulk(Array.from({ length: 6 }, (_, i) => ({ name: "sync" as const, args: [i] as [number] })));
    const report = await tq.tick({ budgetMs: 10_000, concurrency: 3, batch: 4 });
    expect(report).toMatchObject({ succeeded: 66, more: false });
    expect(synced).toBe(6);
    expect(keyMost).toBe(1);
    expect(most).toBe(3);
  }, 30_000);
});
