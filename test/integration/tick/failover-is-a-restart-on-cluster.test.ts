// The other side of slot-migration-is-no-restart.test.ts: on a Redis Cluster, a replica promoted over
// the master of a prefix's keys may have missed the master's last writes, so it still counts as a
// restart: a tick whose master failed over mid-job is told its lease is lost. Its own cluster: three
// masters with a replica each, stopped by PID.
import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startPrivateRedisCluster, type PrivateRedisCluster } from "../../../bench/chaos/private-cluster.js";
import { createTickq } from "../../../src/index.js";
import { slotOf } from "../../../src/partitions/layout.js";
import { ioredisAdapter } from "../../../src/redis/ioredis.js";

let cluster: PrivateRedisCluster;
let client: Cluster;

beforeAll(async () => {
  cluster = await startPrivateRedisCluster({ masters: 3, replicas: 1 });
  if (!(await cluster.settled(30_000))) throw new Error("the private cluster did not settle");
  client = new Cluster(cluster.seeds, { redisOptions: { maxRetriesPerRequest: 2 } });
  client.on("error", () => {});
}, 90_000);

afterAll(async () => {
  client?.disconnect();
  await cluster?.stop();
});

/** CLUSTER FAILOVER on the replica of `slot`'s master: the replica becomes its master. */
async function failOver(slot: number): Promise<void> {
  const master = (await cluster.masters()).find((m) => m.slots.some(([low, high]) => low <= slot && slot <= high))!;
  const replica = new Redis({ host: "127.0.0.1", port: master.replicas[0]! });
  try {
    await replica.call("CLUSTER", "FAILOVER");
    while (!(await replica.info("replication")).includes("role:master")) await new Promise((r) => setTimeout(r, 50));
  } finally {
    replica.disconnect();
  }
}

it("a tick whose master fails over to its replica mid-job loses its lease", async () => {
  const prefix = `{fo-${Date.now().toString(36)}}:`;
  const tq = createTickq({
    redis: ioredisAdapter(client),
    prefix,
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    jobs: {
      failover: async () => {
        await failOver(slotOf(prefix));
        await new Promise((resolve) => setTimeout(resolve, 1_500)); // past an extend, on the new master
      },
    },
  });
  await tq.tick({ budgetMs: 1_000 }); // the boot record is written on the master
  await tq.enqueue("failover", []);
  expect(await tq.tick({ budgetMs: 3_000 })).toMatchObject({ leaseLost: true });
}, 60_000);
