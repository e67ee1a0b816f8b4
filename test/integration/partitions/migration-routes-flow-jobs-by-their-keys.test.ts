// Without the deployment's job definitions (the CLI has none), migratePartitions
// routes a flow job by the key its stored form carries, as enqueue routes it:
// jobs of one concurrency, rate or unique key land in one partition, and the
// partitioned deployment keeps the limit. A key too long to be stored whole
// is refused, naming the option that routes it.
import { expect, it } from "vitest";
import { migratePartitions, TickqError } from "../../../src/index.js";
import { partitionOf, partitionPrefixes } from "../../../src/partitions/layout.js";
import { routeKeyOf } from "../../../src/partitions/route.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const QUIET = { info: () => {}, warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeOverAdapters(adapterCases, "migration routes flow jobs by their keys, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "part-flowkeys");

  it("puts every job of a concurrency, rate or unique key in its key's partition, and the limit holds after", async () => {
    let running = 0;
    let most = 0;
    const jobs = {
      perAccount: {
        concurrency: { key: ([account]: [string, number]) => `acct:${account}`, limit: 1 },
        perform: async () => {
          most = Math.max(most, ++running);
          await sleep(20);
          running--;
        },
      },
      rated: { rateLimit: { key: ([k]: [string]) => k, limit: 100, periodMs: 1_000 }, perform: () => {} },
      once: { uniqueKey: ([k]: [string]) => `once:${k}`, perform: () => {} },
    };
    const old = h.make(jobs);
    await old.enqueueBulk(Array.from({ length: 8 }, (_, n) => ({ name: "perAccount" as const, args: ["A", n] })));
    await old.enqueue("rated", ["r1"]);
    await old.enqueue("once", ["u1"], { unique: "while-executing" });
    await old.enqueue("once", ["u2"], { unique: "until-executed" });

    // No `jobs`: the stored descriptors route them.
    const report = await migratePartitions({ redis: h.adapter, prefix: h.prefix, partitions: 3, logger: QUIET });
    expect(report.moved.queued).toBe(11);
    const prefixes = partitionPrefixes(h.prefix, 3);
    const where = async (name: string, args: unknown[], unique?: string) => {
      const key = routeKeyOf(jobs, { name, args, ...(unique ? { unique } : {}) } as never)!;
      return prefixes[partitionOf(key, 3)]!;
    };
    // Queued jobs land in their partition's schedule, due at once.
    const scheduled = async (prefix: string) => (await h.redis.zrange(`${prefix}schedule`, "0", "-1")).join("\n");
    const account = await where("perAccount", ["A", 0]);
    const members = await h.redis.zrange(`${account}schedule`, "0", "-1");
    expect(members.filter((m) => m.includes("perAccount")).length).toBe(8);
    expect(await scheduled(await where("rated", ["r1"]))).toContain("r1");
    expect(await scheduled(await where("once", ["u1"], "while-executing"))).toContain("u1");
    expect(await scheduled(await where("once", ["u2"], "until-executed"))).toContain("u2");

    const tq = h.make(jobs, { partitions: 3 });
    for (let i = 0; i < 20 && (await tq.stats()).processed < 11; i++)
      await tq.tick({ budgetMs: 2_000, concurrency: 8 });
    expect((await tq.stats()).processed).toBe(11);
    expect(most).toBe(1);
  });

  it("refuses a flow job whose key was too long to store whole, and moves it once given the jobs", async () => {
    const jobs = {
      long: { concurrency: { key: ([k]: [string]) => k, limit: 1 }, perform: () => {} },
    };
    const old = h.make(jobs);
    const jid = await old.enqueue("long", ["k".repeat(300)]);
    const refused = await migratePartitions({ redis: h.adapter, prefix: h.prefix, partitions: 3, logger: QUIET }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(TickqError);
    expect((refused as TickqError).code).toBe("BAD_OPTIONS");
    expect((refused as TickqError).message).toContain(jid);
    expect((refused as TickqError).message).toMatch(/--jobs/);
    const report = await migratePartitions({ redis: h.adapter, prefix: h.prefix, partitions: 3, jobs, logger: QUIET });
    expect(report.moved.queued).toBe(1);
    const found = await h.make(jobs, { partitions: 3 }).jobs.find(jid);
    expect(found?.state).toBe("scheduled");
  });
});
