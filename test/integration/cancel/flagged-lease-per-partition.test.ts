// A cancel mark flags its holder's lease (lib/cancel/read-cancel-marks.lua),
// and a step reads the tick's marks only when flagged. Over partitions a
// tick holds one lease per partition (`T`, `T.p1`, …, each under its
// partition's prefix): the mark of a job running in partition k must flag
// that partition's lease, or the step there acks a stubborn handler's
// success as a success. Every partition's job ends cancelled.
import { expect, it } from "vitest";
import { partitionOf, partitionPrefixes } from "../../../src/partitions/layout.js";
import { adapterCase, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describeOverAdapters([adapterCase("ioredis")], "a cancel mark over partitions, over $name", (c) => {
  const h = useHarness(c, "cancel-part-flag");

  it("flags the lease of the partition that holds the job: a handler ignoring its signal ends cancelled in every partition", async () => {
    const started = new Set<string>();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const tq = h.make(
      {
        stubborn: async (_args: [number], ctx) => {
          started.add(ctx.jid);
          await released;
          return "done";
        },
      },
      { partitions: 3, keepCompleted: { count: 10 } },
    );
    const jids = await tq.enqueueBulk(Array.from({ length: 6 }, (_, n) => ({ name: "stubborn" as const, args: [n] })));
    expect(new Set(jids.map((jid) => partitionOf(jid, 3)))).toEqual(new Set([0, 1, 2]));
    const ticking = tq.tick({ tickId: "T", concurrency: 6, budgetMs: 10_000, cancelCheckMs: 200 });
    for (let i = 0; i < 200 && started.size < 6; i++) await new Promise((r) => setTimeout(r, 25));
    expect(started.size).toBe(6);

    const cancelled = jids.filter((_, n) => n % 2 === 0);
    expect(new Set(cancelled.map((jid) => partitionOf(jid, 3))).size).toBeGreaterThan(1);
    for (const jid of cancelled) expect((await tq.jobs.cancel(jid)).state).toBe("cancelling");
    const prefixes = partitionPrefixes(h.prefix, 3);
    const leases = ["T", "T.p1", "T.p2"].map((id, k) => `${prefixes[k]}tick:${id}`);
    const flagged = await Promise.all(leases.map((key) => h.redis.hget(key, "cancels")));
    for (const jid of cancelled) expect(flagged[partitionOf(jid, 3)], jid).toBe("1");
    release();
    const report = await ticking;
    expect(report).toMatchObject({ cancelled: 3, succeeded: 3 });
    for (const jid of jids) {
      const state = cancelled.includes(jid) ? "cancelled" : "succeeded";
      expect((await tq.jobs.result(jid))?.state, jid).toBe(state);
    }
  });
});
