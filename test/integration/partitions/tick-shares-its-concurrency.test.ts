// A tick over partitions has one concurrency for all of them: its
// partitions' pipelines draw on one pool of slots (src/tick/slots.ts). It
// never runs more handlers than `concurrency`, and when only one partition
// has work, that partition gets every slot.
import { expect, it } from "vitest";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { jidsIn } from "../../helpers/partition-jids.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A handler that sleeps, and the most handlers seen running at once. */
function slowJobs(ms: number) {
  let running = 0;
  const seen = { most: 0 };
  const jobs = {
    slow: async () => {
      running++;
      seen.most = Math.max(seen.most, running);
      await sleep(ms);
      running--;
    },
  };
  return { jobs, seen };
}

describeOverAdapters(adapterCases, "a tick over partitions shares its concurrency, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "partitions-slots");

  it("never runs more handlers than its concurrency across its partitions", async () => {
    const { jobs, seen } = slowJobs(30);
    const tq = h.make(jobs, { partitions: 3 });
    await tq.enqueueBulk(Array.from({ length: 30 }, () => ({ name: "slow" as const, args: [] })));
    const report = await tq.tick({ budgetMs: 10_000, concurrency: 4 });
    expect(report).toMatchObject({ succeeded: 30, more: false });
    // Split evenly and rounded up, three partitions would have run 2 each: 6.
    expect(seen.most).toBe(4);
  });

  it("gives every slot to the one partition that has work", async () => {
    const { jobs, seen } = slowJobs(60);
    const tq = h.make(jobs, { partitions: 3 });
    const jids = jidsIn(1, 3, 12, h.prefix);
    await tq.enqueueBulk(jids.map((jid) => ({ name: "slow" as const, args: [], jid })));
    const report = await tq.tick({ budgetMs: 10_000, concurrency: 6 });
    expect(report).toMatchObject({ succeeded: 12, more: false });
    // Split evenly, partition 1 would have had 2 slots of the 6.
    expect(seen.most).toBe(6);
  });

  it("starts the job fetched first when a slot frees, whichever partition holds it", async () => {
    const started: string[] = [];
    let running = 0;
    let most = 0;
    const tq = h.make(
      {
        slow: async ([tag]: [string]) => {
          started.push(tag);
          most = Math.max(most, ++running);
          await sleep(20);
          running--;
        },
      },
      { partitions: 3 },
    );
    // Partition 0 holds many jobs, partitions 1 and 2 one each: with one slot, the two single
    // jobs are not left behind all of partition 0's (each partition's first fetch is one batch).
    const many = jidsIn(0, 3, 8, `${h.prefix}a`);
    const [one] = jidsIn(1, 3, 1, `${h.prefix}b`);
    const [two] = jidsIn(2, 3, 1, `${h.prefix}c`);
    await tq.enqueueBulk([
      ...many.map((jid) => ({ name: "slow" as const, args: ["p0"] as [string], jid })),
      { name: "slow" as const, args: ["p1"] as [string], jid: one! },
      { name: "slow" as const, args: ["p2"] as [string], jid: two! },
    ]);
    const report = await tq.tick({ budgetMs: 10_000, concurrency: 1, batch: 4 });
    expect(report).toMatchObject({ succeeded: 10, more: false });
    expect(most).toBe(1);
    // Partition 0's first batch is 4 jobs; partition 0 fetches its next 4 only after that batch
    // started, so the jobs of partitions 1 and 2 (fetched at the start) run before those.
    expect(
      started
        .slice(0, 6)
        .filter((t) => t !== "p0")
        .sort(),
    ).toEqual(["p1", "p2"]);
  });

  it("starts a higher queue's job first in strict order, whichever partition fetched it", async () => {
    const started: string[] = [];
    // The first job holds its slot until partition 1's fetch has taken the high jobs from their queue
    // (and a margin for its reply): on a loaded machine that round trip can outlast any fixed sleep,
    // and a low job started while the high ones were still on their way would be no fault of the order.
    const highsFetched = async () => {
      while ((await tq.stats()).queues.high) await sleep(5);
      await sleep(50);
    };
    const tq = h.make(
      {
        work: async ([queue]: [string]) => {
          started.push(queue);
          if (started.length === 1) await highsFetched();
          await sleep(15);
        },
      },
      { partitions: 3, queues: ["high", "low"] },
    );
    // Low jobs in partition 0, high ones in partition 1: one slot, both partitions fetched at the start.
    const lows = jidsIn(0, 3, 4, `${h.prefix}low`);
    const highs = jidsIn(1, 3, 4, `${h.prefix}high`);
    await tq.enqueueBulk([
      ...lows.map((jid) => ({ name: "work" as const, args: ["low"] as [string], jid, queue: "low" })),
      ...highs.map((jid) => ({ name: "work" as const, args: ["high"] as [string], jid, queue: "high" })),
    ]);
    const report = await tq.tick({ budgetMs: 10_000, concurrency: 1, batch: 10 });
    expect(report).toMatchObject({ succeeded: 8, more: false });
    // At most the first start (before partition 1's fetch came back) is a low job.
    const lastHigh = started.lastIndexOf("high");
    expect(started.slice(0, lastHigh).filter((q) => q === "low").length).toBeLessThanOrEqual(1);
  });
});
