// A suspect (a job a dead tick left behind) runs alone in its process
// (src/tick/solo-gate.ts). A tick over partitions runs one pipeline per
// partition on one pool of slots (src/tick/slots.ts): while a suspect of one
// partition waits for, or has, its solo run, no job of another partition
// starts from the pool, and the others' jobs go on once it is done.
import { expect, it } from "vitest";
import { partitionPrefixes } from "../../../src/partitions/layout.js";
import { adapterCase, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { jidsIn } from "../../helpers/partition-jids.js";
import { sleep } from "../../helpers/redis.js";

describeOverAdapters([adapterCase("ioredis")], "a solo run in a tick over partitions, over $name", (c) => {
  const h = useHarness(c, "part-solo");

  it("runs with no job of the tick's other partitions beside it", async () => {
    const runs: { what: string; from: number; to: number }[] = [];
    const tq = h.make(
      {
        work: async ([what, ms]: [string, number]) => {
          const from = performance.now();
          await sleep(ms);
          runs.push({ what, from, to: performance.now() });
        },
      },
      { partitions: 3 },
    );
    for (const k of [0, 2]) {
      const jids = jidsIn(k, 3, 12, `${h.prefix}${k}`);
      await tq.enqueueBulk(
        jids.map((jid, i) => ({ name: "work" as const, args: [`p${k}-${i}`, 80] as [string, number], jid })),
      );
    }
    for (const [i, jid] of jidsIn(1, 3, 3, `${h.prefix}s`).entries())
      await tq.enqueue("work", [`suspect${i}`, 100], { jid });
    // A dead tick left them behind: resurrect.lua marks them so.
    const prefix = partitionPrefixes(h.prefix, 3)[1]!;
    for (const text of await h.redis.lrange(`${prefix}queue:default`, 0, -1))
      await h.redis.hset(`${prefix}suspects`, text, 1);

    const report = await tq.tick({ budgetMs: 10_000, concurrency: 4, batch: 4 });
    expect(report.succeeded).toBe(27);
    const suspects = runs.filter((r) => r.what.startsWith("suspect"));
    expect(suspects).toHaveLength(3);
    for (const alone of suspects) {
      const beside = runs.filter((r) => r !== alone && r.from < alone.to && r.to > alone.from);
      expect(beside.map((r) => r.what)).toEqual([]);
    }
    expect(await h.redis.hlen(`${prefix}solo`)).toBe(0);
  }, 30_000);
});
