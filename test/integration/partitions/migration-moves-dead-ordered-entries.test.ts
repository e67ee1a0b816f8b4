// An ordered id whose retries ran out leaves a dead entry (o:NAME:dead), a
// record with the failed run's payloads that no tick runs again. A migration
// moves these as it moves dead jobs, each into its id's partition, and does
// not refuse for them; a run cut between adopting an entry and removing it
// at the source doubles nothing when run again.
import { expect, it } from "vitest";
import { migratePartitions } from "../../../src/index.js";
import { partitionOfOrdered } from "../../../src/partitions/route.js";
import { partitionPrefixes } from "../../../src/partitions/layout.js";
import type { RedisAdapter } from "../../../src/redis/types.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const QUIET = { info: () => {}, warn: () => {}, error: () => {} };
const IDS = ["a", "b", "c", "d", "e"];

describeOverAdapters(adapterCases, "a migration's dead ordered entries, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "part-odead");
  const ordered = { idx: { retry: false, perform: () => Promise.reject(new Error("boom")) } };

  /** Every id of IDS dead once in the one-partition layout. */
  async function seedDead() {
    const old = h.make({ step: () => {} }, { ordered });
    for (const id of IDS) await old.enqueueOrdered("idx", { id, payload: `${id}-1` });
    await old.tick({ budgetMs: 2_000 });
    expect((await old.stats()).ordered.idx).toMatchObject({ waiting: 0, running: 0, dead: IDS.length });
    return old;
  }

  /** The dead entries' ids in each new partition. */
  async function deadIdsByPartition(): Promise<string[][]> {
    return Promise.all(
      partitionPrefixes(h.prefix, 3).map(async (p) =>
        (await h.redis.zrange(`${p}o:idx:dead`, "0", "-1")).map((e) => (JSON.parse(e) as { id: string }).id).sort(),
      ),
    );
  }

  it("moves each dead entry once, into its id's partition, without refusing for it", async () => {
    const old = await seedDead();
    const report = await migratePartitions({ redis: h.adapter, prefix: h.prefix, partitions: 3, logger: QUIET });
    expect(report).toMatchObject({ moved: { orderedDead: IDS.length }, left: [] });
    expect((await old.stats()).ordered.idx?.dead).toBe(0);
    const expected = [0, 1, 2].map((k) => IDS.filter((id) => partitionOfOrdered("idx", id, 3) === k).sort());
    expect(await deadIdsByPartition()).toEqual(expected);
    const tq = h.make({ step: () => {} }, { ordered, partitions: 3 });
    expect((await tq.stats()).ordered.idx?.dead).toBe(IDS.length);
  });

  it("a run cut between adopting an entry and removing it at the source moves it once when run again", async () => {
    await seedDead();
    // Cut: the third removal at the source never reaches Redis.
    let removals = 0;
    const isRemoval = (args: string[]) => args.length === 2 && args[1]!.startsWith('{"');
    const cutting: RedisAdapter = {
      ...h.adapter,
      cluster: h.adapter.cluster,
      evalsha: (sha, keys, args) =>
        keys.length === 1 && keys[0]!.endsWith("o:idx:dead") && isRemoval(args) && ++removals === 3
          ? Promise.reject(new Error("connection lost"))
          : h.adapter.evalsha(sha, keys, args),
    };
    await expect(migratePartitions({ redis: cutting, prefix: h.prefix, partitions: 3, logger: QUIET })).rejects.toThrow(
      /connection lost/,
    );
    const again = await migratePartitions({ redis: h.adapter, prefix: h.prefix, partitions: 3, logger: QUIET });
    expect(again.moved.orderedDead).toBe(IDS.length - 2);
    expect((await deadIdsByPartition()).flat().sort()).toEqual(IDS);
  });
});
