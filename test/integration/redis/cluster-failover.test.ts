// tickq on a Redis Cluster whose master dies mid-drain: three masters with
// a replica each (the test's own, cluster-node-timeout 1 s); the master that
// serves tickq's hash tag is SIGKILLed while ticks drain and an enqueuer
// keeps sending; the cluster promotes its replica, the clients follow, and
// every acknowledged job runs. Over ioredis' Cluster client with durability
// on (its WAIT must reach the master that took the call's writes, not any
// node), and over node-redis' cluster client, which has no WAIT.
import { Cluster, Redis } from "ioredis";
import { createCluster } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivateRedisCluster, type PrivateRedisCluster } from "../../../bench/chaos/private-cluster.js";
import { createTickq } from "../../../src/index.js";
import { slotOf } from "../../../src/partitions/layout.js";
import { ioredisAdapter } from "../../../src/redis/ioredis.js";
import { nodeRedisAdapter } from "../../../src/redis/node-redis.js";
import type { RedisAdapter } from "../../../src/redis/types.js";

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const PREFIX = "{failover}:";
const SLOT = slotOf(PREFIX);

let cluster: PrivateRedisCluster;
beforeAll(async () => {
  cluster = await startPrivateRedisCluster({ masters: 3, replicas: 1, nodeTimeoutMs: 1_000 });
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

async function commandCalls(port: number, command: string): Promise<number> {
  const node = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 1 });
  try {
    return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(await node.info("commandstats"))?.[1] ?? 0);
  } finally {
    node.disconnect();
  }
}

interface Client {
  adapter: RedisAdapter;
  close(): void;
}

const clients: { name: string; durability: boolean; open(): Promise<Client> }[] = [
  {
    name: "ioredis",
    durability: true,
    async open() {
      const client = new Cluster(cluster.seeds, {
        redisOptions: { maxRetriesPerRequest: 2, connectTimeout: 1_000 },
        retryDelayOnFailover: 200,
        retryDelayOnClusterDown: 200,
      });
      client.on("error", () => {});
      return { adapter: ioredisAdapter(client), close: () => client.disconnect() };
    },
  },
  {
    name: "node-redis",
    durability: false,
    async open() {
      const client = createCluster({
        rootNodes: cluster.seeds.map(({ host, port }) => ({ url: `redis://${host}:${port}` })),
      });
      client.on("error", () => {});
      await client.connect();
      return { adapter: nodeRedisAdapter(client), close: () => client.destroy() };
    },
  },
];

describe("durability over ioredis' Cluster client", () => {
  it("sends each WAIT to the master that served the call, never to another node", async () => {
    const client = await clients[0]!.open();
    try {
      const owner = (await cluster.masterOf(SLOT))!;
      const others = (await cluster.masters()).filter((m) => m.port !== owner.port);
      const before = await Promise.all(others.map((m) => commandCalls(m.port, "wait")));
      const ownerBefore = await commandCalls(owner.port, "wait");
      const tq = createTickq({
        redis: client.adapter,
        prefix: PREFIX,
        durability: { replicas: 1, timeoutMs: 1_000 },
        jobs: { note: () => {} },
        logger: quiet,
      });
      for (let i = 0; i < 12; i++) await tq.enqueue("note", [], { jid: `w${i}` });
      expect(await commandCalls(owner.port, "wait")).toBeGreaterThanOrEqual(ownerBefore + 12);
      expect(await Promise.all(others.map((m) => commandCalls(m.port, "wait")))).toEqual(before);
      await tq.jobs.deleteAll("queued", { queue: "default" });
    } finally {
      client.close();
    }
  }, 20_000);
});

describe.each(clients)("a cluster master SIGKILLed mid-drain, over $name", ({ name, durability, open }) => {
  it("promotes its replica and loses no acknowledged job", async () => {
    expect(await cluster.settled(20_000)).toBe(true);
    const client = await open();
    const ran = new Set<string>();
    const tq = createTickq({
      redis: client.adapter,
      prefix: PREFIX,
      redisTimeoutMs: 2_000,
      maxResurrections: 1_000,
      ...(durability ? { durability: { replicas: 1, timeoutMs: 1_000 } } : {}),
      jobs: { note: ([id]: [string]) => void ran.add(id) },
      logger: quiet,
    });
    const acknowledged: string[] = [];
    const send = async (from: number, to: number) => {
      for (let i = from; i < to; i += 20) {
        const jobs = Array.from({ length: Math.min(20, to - i) }, (_, k) => ({
          name: "note" as const,
          args: [`${name}-${i + k}`] as [string],
          jid: `${name}-${i + k}`,
        }));
        for (;;) {
          try {
            await tq.enqueueBulk(jobs); // a resend after a lost reply lands once: the jids are the job's
            break;
          } catch {
            await sleep(100);
          }
        }
        acknowledged.push(...jobs.map((j) => j.jid));
      }
    };
    let stopping = false;
    const ticking = (async () => {
      while (!stopping) {
        const report = await tq
          .tick({ budgetMs: 1_000, leaseMs: 1_500, batch: 10, concurrency: 5 })
          .catch(() => undefined);
        if (!report?.more) await sleep(report ? 20 : 100);
      }
    })();
    try {
      await send(0, 200);
      const victim = (await cluster.masterOf(SLOT))!;
      await victim.kill();
      const enqueueing = send(200, 400);
      let promoted: number | undefined;
      for (let i = 0; i < 150 && promoted === undefined; i++) {
        const now = await cluster.masterOf(SLOT);
        if (now && now.port !== victim.port) promoted = now.port;
        else await sleep(100);
      }
      expect(promoted, "the replica took over").toBeDefined();
      // Back as the new master's replica: with durability, writes wait for one.
      await victim.start();
      await enqueueing;
      for (let i = 0; i < 150 && !acknowledged.every((id) => ran.has(id)); i++) await sleep(100);
      expect(acknowledged.filter((id) => !ran.has(id))).toEqual([]);
      expect(acknowledged).toHaveLength(400);
    } finally {
      stopping = true;
      await ticking;
      client.close();
    }
  }, 40_000);
});
