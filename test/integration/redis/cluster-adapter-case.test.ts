// The `cluster` adapter case (npm run test:cluster) is what lets every core
// suite run on a Redis Cluster: it must hand a test a prefix whose keys share
// one slot, and an h.redis that sees all of them (KEYS included), or the
// suites' assertions would pass by looking at an empty node.
import { Cluster } from "ioredis";
import { expect, it } from "vitest";
import { slotOf } from "../../../src/partitions/layout.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const clusterCases = adapterCases.filter((c) => c.name === "cluster");

describeOverAdapters(clusterCases, "the test harness over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cluster-case");

  it("gives a hash-tagged prefix and an h.redis on the master of its slot that sees every key tickq wrote", async () => {
    expect(h.prefix).toMatch(/^tickq-test:\{cl-[^}]+\}:/);
    expect(h.adapter.cluster).toBe(true);
    const tq = h.make({ work: () => {} });
    await tq.enqueueBulk(Array.from({ length: 5 }, (_, i) => ({ name: "work" as const, args: [i] })));
    await tq.enqueue("work", [9], { delayMs: 60_000 });

    const keys = await h.redis.keys(`${h.prefix}*`);
    expect(keys.length).toBeGreaterThan(1);
    expect(new Set(keys.map(slotOf))).toEqual(new Set([slotOf(h.prefix)]));
    // The node h.redis speaks to serves that slot: it holds exactly those keys in it.
    expect(await h.redis.call("CLUSTER", "COUNTKEYSINSLOT", slotOf(h.prefix))).toBe(keys.length);

    // The cluster as a client sees it: the same keys, reached through the slot's owner.
    const seed = new URL(adapterCase.endpoints().redisUrl);
    const cluster = new Cluster([{ host: seed.hostname, port: Number(seed.port) }]);
    try {
      expect(await cluster.exists(...keys)).toBe(keys.length);
    } finally {
      cluster.disconnect();
    }
  });
});
