// A tick hands back the jobs it holds once the oldest waited the hold time
// while no slot freed (src/tick/prefetch.ts): its slots are stuck on long
// jobs and another tick could run them. Over partitions the slots are one
// pool (src/tick/slots.ts), so a slot freed in any partition counts: jobs
// held by one partition while the others' jobs keep finishing and starting
// are not stuck, and going back to their queues would only cost a refetch
// and a `more` that asks for a needless tick.
import { expect, it } from "vitest";
import { adapterCase, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describeOverAdapters([adapterCase("ioredis")], "jobs held over partitions, over $name", (c) => {
  const h = useHarness(c, "part-held");

  it("are not handed back while slots of other partitions keep freeing", async () => {
    const tq = h.make({ busy: async (_args: [number]) => sleep(100) }, { partitions: 3 });
    await tq.enqueueBulk(Array.from({ length: 60 }, (_, i) => ({ name: "busy" as const, args: [i] as [number] })));
    // Three first fetches of 4 for 3 slots: the last of them waits ~300 ms, past the hold time,
    // while a slot of the pool frees every ~33 ms.
    const report = await tq.tick({ budgetMs: 10_000, concurrency: 3, batch: 4 });
    expect(report).toMatchObject({ succeeded: 60, requeued: 0, fetched: 60, more: false });
  });
});
