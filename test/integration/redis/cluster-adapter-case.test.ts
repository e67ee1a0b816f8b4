// The `cluster` adapter case (npm run test:cluster) is what lets every core
// suite run on a Redis Cluster: it must hand a test a prefix whose keys share
// one slot, and an h.redis that sees all of them (KEYS included), or the
// suites' assertions would pass by looking at an empty node. It must also be
// the cluster it was asked for: with TICKQ_CLUSTER_REPLICAS=1 (npm run
// test:cluster:replicas) a replica linked to each master, and no read served
// by a replica, or the replica run would pass as a copy of the plain one.
import { Cluster, Redis } from "ioredis";
import { expect, it } from "vitest";
import { slotOf } from "../../../src/partitions/layout.js";
import { parseNodes } from "../../../bench/chaos/private-cluster.js";
import { clusterReplicasAsked } from "../../helpers/adapter-names.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { clusterNodes } from "../../helpers/cluster-slot.js";
import { useHarness } from "../../helpers/harness.js";

const clusterCases = adapterCases.filter((c) => c.name === "cluster");
const replicas = clusterCases.length > 0 ? clusterReplicasAsked() : 0;

/** A short-lived connection to one node of the cluster. */
async function onNode<T>(port: number, ask: (node: Redis) => Promise<T>): Promise<T> {
  const node = new Redis({ host: "127.0.0.1", port });
  try {
    return await ask(node);
  } finally {
    node.disconnect();
  }
}

describeOverAdapters(clusterCases, "the test harness over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cluster-case");
  const seedPort = () => Number(new URL(adapterCase.endpoints().redisUrl).port);
  const nodeRows = async () => parseNodes((await h.redis.call("CLUSTER", "NODES")) as string);

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
    expect(await h.redis.call("ROLE")).toContain("master");

    // The cluster as a client sees it: the same keys, reached through the slot's owner.
    const cluster = new Cluster([{ host: "127.0.0.1", port: seedPort() }]);
    try {
      expect(await cluster.exists(...keys)).toBe(keys.length);
    } finally {
      cluster.disconnect();
    }
  });

  it(`runs on 3 masters with ${replicas} replica(s) each, linked and in sync (TICKQ_CLUSTER_REPLICAS)`, async () => {
    const rows = await nodeRows();
    const masters = rows.filter((r) => r.flags.includes("master") && r.slots.length > 0);
    expect(masters).toHaveLength(3);
    expect(rows).toHaveLength(3 * (1 + replicas));
    expect(rows.every((r) => r.link === "connected" && !r.flags.some((f) => f.startsWith("fail")))).toBe(true);
    for (const master of masters) {
      const own = rows.filter((r) => r.flags.includes("slave") && r.masterId === master.id);
      expect(own).toHaveLength(replicas);
      for (const replica of own) {
        const info = await onNode(replica.port, (node) => node.info("replication"));
        expect(info).toMatch(/master_link_status:up/);
        expect(info).toMatch(new RegExp(`master_port:${master.port}\\r?\\n`));
        expect(info).toMatch(/master_sync_in_progress:0/);
      }
    }
    // What a client learns of the cluster (CLUSTER SLOTS) names the replicas too.
    expect(await clusterNodes(adapterCase.endpoints().redisUrl)).toHaveLength(3 * (1 + replicas));
  });

  it.skipIf(replicas === 0)("serves no read and runs no script on a replica: clients read masters only", async () => {
    // Reads and script calls through the adapter and through a default Cluster client, on top of every suite's
    // calls so far in this run (the counters are the replica's since it started).
    const tq = h.make({ work: () => {} });
    await tq.enqueueBulk(Array.from({ length: 5 }, (_, i) => ({ name: "work" as const, args: [i] })));
    await tq.tick();
    expect(await tq.stats()).toMatchObject({ dead: 0, retry: 0 });
    const cluster = new Cluster([{ host: "127.0.0.1", port: seedPort() }]);
    try {
      await cluster.exists(`${h.prefix}a`, `${h.prefix}b`);
    } finally {
      cluster.disconnect();
    }

    const replicaPorts = (await nodeRows()).filter((r) => r.flags.includes("slave")).map((r) => r.port);
    expect(replicaPorts).toHaveLength(3 * replicas);
    for (const port of replicaPorts) {
      // A replica runs what its master sends it (scripts arrive as their write commands) and what a client
      // asks it directly; a command flagged readonly, or a script, can only be the latter.
      const served = await onNode(port, async (node) => {
        const stats = await node.info("commandstats");
        const names = [...stats.matchAll(/^cmdstat_([^:]+):/gm)].map((m) => m[1]!);
        const infos = (await node.call("COMMAND", "INFO", ...names)) as [string, number, string[]][];
        return infos.filter((c) => c && (c[2].includes("readonly") || /^(eval|fcall)/.test(c[0]))).map((c) => c[0]);
      });
      expect({ port, served }).toEqual({ port, served: [] });
    }
  });
});
