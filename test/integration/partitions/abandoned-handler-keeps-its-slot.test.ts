// A handler that ignores its abort outlives its partition's pipeline: after
// the grace period the pipeline closes and leaves the handler in inproc
// (`abandoned`). It still runs, so it still takes a slot of the tick's pool
// (src/tick/slots.ts): the other partitions of the tick, still under their
// leases, never run more handlers than `concurrency` beside it.
import { expect, it } from "vitest";
import { partitionPrefixes } from "../../../src/partitions/layout.js";
import { adapterCase, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { jidsIn } from "../../helpers/partition-jids.js";
import { sleep } from "../../helpers/redis.js";

describeOverAdapters([adapterCase("ioredis")], "an abandoned handler over partitions, over $name", (c) => {
  const h = useHarness(c, "part-abandon");

  it("keeps its slot in the tick's pool after its partition lost its lease", async () => {
    let running = 0;
    let most = 0;
    let hung = false;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const tq = h.make(
      {
        // Ignores its signal: its pipeline gives up on it after graceMs.
        hang: async () => {
          running++;
          hung = true;
          await released;
          running--;
        },
        work: async () => {
          most = Math.max(most, ++running);
          await sleep(20);
          running--;
        },
      },
      { partitions: 3 },
    );
    const [hangJid] = jidsIn(1, 3, 1, `${h.prefix}h`);
    await tq.enqueue("hang", [], { jid: hangJid });
    for (const k of [0, 2]) {
      const jids = jidsIn(k, 3, 100, `${h.prefix}${k}`);
      await tq.enqueueBulk(jids.map((jid) => ({ name: "work" as const, args: [], jid })));
    }
    const ticking = tq.tick({ tickId: "T", concurrency: 2, batch: 2, leaseMs: 1_000, graceMs: 50, budgetMs: 4_000 });
    for (let i = 0; i < 200 && !hung; i++) await sleep(10);
    // Partition 1's lease is gone: its pipeline aborts, waits graceMs, and closes with the handler running.
    await h.redis.del(`${partitionPrefixes(h.prefix, 3)[1]}tick:T.p1`);
    const report = await ticking;
    release();
    expect(report).toMatchObject({ leaseLost: true, abandoned: 1 });
    expect(report.succeeded).toBeGreaterThan(0);
    expect(most).toBe(2);
  }, 20_000);
});
