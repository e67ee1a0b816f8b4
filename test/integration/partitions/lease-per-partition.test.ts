// A tick over partitions holds one lease in each partition it serves, in that
// partition's slot (docs/operate/cluster.md, "Leases: one per partition, and
// why"): a partition's scripts check only the lease in their own slot. The
// fence therefore holds per partition: a tick that loses its lease in one
// partition aborts that partition's handlers, fetches nothing more there and
// reports leaseLost, while its jobs in the other partitions, under leases it
// still holds, run to success.
import { expect, it } from "vitest";
import { partitionOf, partitionPrefixes, slotOf } from "../../../src/partitions/layout.js";
import { adapterCase, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describeOverAdapters([adapterCase("ioredis")], "a tick's leases over partitions, over $name", (c) => {
  const h = useHarness(c, "part-lease");

  it("holds one lease per partition in its slot; losing one stops that partition only", async () => {
    const started = new Set<string>();
    const aborted = new Set<string>();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const tq = h.make(
      {
        hold: async (_args: [number], ctx) => {
          started.add(ctx.jid);
          await Promise.race([
            released,
            new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve())),
          ]);
          if (ctx.signal.aborted) {
            aborted.add(ctx.jid);
            throw new Error("aborted");
          }
        },
      },
      { partitions: 3 },
    );
    const jids = await tq.enqueueBulk(Array.from({ length: 6 }, (_, n) => ({ name: "hold" as const, args: [n] })));
    const inPartition = (k: number) => jids.filter((jid) => partitionOf(jid, 3) === k).sort();
    expect([0, 1, 2].map((k) => inPartition(k).length)).toEqual([2, 2, 2]);

    const ticking = tq.tick({ tickId: "T", concurrency: 6, leaseMs: 1_500, budgetMs: 20_000 });
    for (let i = 0; i < 200 && started.size < 6; i++) await new Promise((r) => setTimeout(r, 25));
    expect(started.size).toBe(6);

    // One lease per partition, each under its partition's prefix and in its slot.
    const prefixes = partitionPrefixes(h.prefix, 3);
    const leases = ["T", "T.p1", "T.p2"].map((id, k) => `${prefixes[k]}tick:${id}`);
    expect(await Promise.all(leases.map((key) => h.redis.exists(key)))).toEqual([1, 1, 1]);
    expect(leases.map(slotOf)).toEqual(prefixes.map((p) => slotOf(`${p}queue:default`)));
    expect((await tq.ticks()).map((t) => t.id).sort()).toEqual(["T", "T.p1", "T.p2"]);

    // Partition 1's lease is gone (a slow master, a failover that lost it): only its handlers stop.
    await h.redis.del(leases[1]!);
    for (let i = 0; i < 200 && aborted.size < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect([...aborted].sort()).toEqual(inPartition(1));
    release();
    const report = await ticking;
    expect(report.leaseLost).toBe(true);
    expect(report.succeeded).toBe(4);
    const done = [0, 2].flatMap(inPartition);
    for (const jid of done) expect((await tq.jobs.find(jid))?.state ?? "gone").toBe("gone");
  }, 30_000);
});
