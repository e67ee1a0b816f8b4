// Fair shares: a queue's jobs are taken round-robin across their groups, so
// one tenant's backlog holds another tenant's jobs back by about one batch,
// not by the whole backlog; priority orders jobs within a group; jobs without
// a group share one turn; and per-group concurrency is flow control keyed by
// the group.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("fair shares over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "groups");

  it("tenant A's 100,000 queued jobs hold back none of tenant B's 10 past the first two batches", async () => {
    const ran: string[] = [];
    const tq = h.make({
      notify: {
        perform: ([tenant]: [string, number]) => void ran.push(tenant),
        group: ([tenant]: [string, number]) => tenant,
      },
    });
    const A = Array.from({ length: 100_000 }, (_, i) => ({
      name: "notify" as const,
      args: ["A", i] as [string, number],
    }));
    await tq.enqueueBulk(A);
    await tq.enqueueBulk(
      Array.from({ length: 10 }, (_, i) => ({ name: "notify" as const, args: ["B", i] as [string, number] })),
    );
    expect((await tq.stats()).queues.default).toBe(100_010);
    const batch = 20;
    await tq.tick({ batch, concurrency: batch, budgetMs: 300 });
    const lastB = ran.lastIndexOf("B");
    expect(ran.filter((t) => t === "B")).toHaveLength(10);
    expect(lastB).toBeLessThan(2 * batch);
  }, 120_000);

  it("takes groups in turn, one job a turn, jobs without a group sharing one turn", async () => {
    const ran: string[] = [];
    const tq = h.make({ job: (args: [string]) => void ran.push(args[0]) });
    for (let i = 0; i < 3; i++) await tq.enqueue("job", [`a${i}`], { group: "a" });
    for (let i = 0; i < 2; i++) await tq.enqueue("job", [`b${i}`], { group: "b" });
    for (let i = 0; i < 2; i++) await tq.enqueue("job", [`plain${i}`]);
    await tq.tick({ batch: 2, concurrency: 1 });
    expect(ran).toHaveLength(7);
    // Every prefix of the run is fair: no one has run two more than another that still had jobs.
    const turns = ["a", "b", "plain"];
    for (let n = 1; n <= ran.length; n++) {
      const counts = turns.map((t) => ran.slice(0, n).filter((x) => x.startsWith(t)).length);
      const totals = [3, 2, 2];
      const waiting = turns.map((_, k) => counts[k]! < totals[k]!);
      for (let k = 0; k < 3; k++)
        for (let j = 0; j < 3; j++) if (waiting[j]) expect(counts[k]! - counts[j]!).toBeLessThanOrEqual(1);
    }
    // Within each group, FIFO.
    for (const t of turns)
      expect(ran.filter((x) => x.startsWith(t))).toEqual(ran.filter((x) => x.startsWith(t)).sort());
    expect(await h.redis.exists(`${h.prefix}groups:default`)).toBe(0);
  });

  it("orders by priority within a group, while groups keep their turns", async () => {
    const ran: string[] = [];
    const tq = h.make({ job: (args: [string]) => void ran.push(args[0]) });
    await tq.enqueue("job", ["a-low"], { group: "a" });
    await tq.enqueue("job", ["a-high"], { group: "a", priority: 10 });
    await tq.enqueue("job", ["b-low"], { group: "b", priority: -10 });
    await tq.enqueue("job", ["b-mid"], { group: "b" });
    await tq.tick({ concurrency: 1 });
    expect(ran.filter((x) => x.startsWith("a"))).toEqual(["a-high", "a-low"]);
    expect(ran.filter((x) => x.startsWith("b"))).toEqual(["b-mid", "b-low"]);
    // turns alternate between the groups
    expect(ran.map((x) => x[0])).toEqual(ran[0]!.startsWith("a") ? ["a", "b", "a", "b"] : ["b", "a", "b", "a"]);
  });

  it("composes with flow control: concurrency keyed by the group keeps one run per tenant, and all run", async () => {
    const live = new Map<string, number>();
    let most = 0;
    const done: string[] = [];
    const tenantOf = ([tenant]: [string, number]) => tenant;
    const tq = h.make({
      sync: {
        perform: async ([tenant]: [string, number]) => {
          const n = (live.get(tenant) ?? 0) + 1;
          live.set(tenant, n);
          most = Math.max(most, n);
          await sleep(5);
          live.set(tenant, n - 1);
          done.push(tenant);
        },
        group: tenantOf,
        concurrency: { key: tenantOf, limit: 1 },
      },
    });
    await tq.enqueueBulk([
      ...Array.from({ length: 12 }, (_, i) => ({ name: "sync" as const, args: ["A", i] as [string, number] })),
      ...Array.from({ length: 4 }, (_, i) => ({ name: "sync" as const, args: ["B", i] as [string, number] })),
    ]);
    for (let k = 0; k < 20 && done.length < 16; k++) await tq.tick({ batch: 8, concurrency: 8 });
    expect(done).toHaveLength(16);
    expect(most).toBe(1);
    expect(done.slice(0, 8).filter((t) => t === "B").length).toBeGreaterThanOrEqual(3);
    expect((await tq.stats()).queues.default).toBe(0);
  });
});
