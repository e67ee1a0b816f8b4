// tickq on a real Redis Cluster (three masters started by the test), through
// ioredis' Cluster client and node-redis' cluster client (createCluster):
// every script declares a key, so the client routes each call to the slot
// of the prefix's hash tag, and every call of the public API works there; a
// prefix without a hash tag is refused at start, naming the fix, before
// anything is written.
import { type Cluster, Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { nodeRedisAdapter } from "../../../src/redis/node-redis.js";
import { createTickq, TickqError } from "../../../src/index.js";
import { useClusterClients } from "../../helpers/private-cluster.js";
import type { RedisAdapter, RedisReply } from "../../../src/redis/types.js";

const QUIET = { info: () => {}, warn: () => {}, error: () => {} };

// The cluster clients tickq runs over; `cc.client` (ioredis) also reads every master for the assertions.
const cc = useClusterClients();
const clusterClients = cc.adapters;

/** Every key on every master. */
async function allKeys(): Promise<string[]> {
  const keys = await Promise.all(cc.client.nodes("master").map((node) => node.keys("*")));
  return keys.flat().sort();
}

describe.each(clusterClients)("tickq on a Redis Cluster, through $name", ({ adapter }) => {
  it("refuses a prefix without a hash tag at start, naming the fix, and writes nothing", async () => {
    expect(adapter().cluster).toBe(true);
    for (const prefix of ["plain:", "half{:", "empty{}:", ""]) {
      let error: unknown;
      try {
        createTickq({ redis: adapter(), prefix, jobs: { mail: () => {} }, logger: QUIET });
      } catch (e) {
        error = e;
      }
      expect(error, prefix).toBeInstanceOf(TickqError);
      expect((error as TickqError).code).toBe("BAD_OPTIONS");
      expect((error as Error).message).toMatch(
        /has no hash tag.*Put a hash tag in the prefix, such as prefix: "\{[^{}]+\}:"/,
      );
    }
    expect(await allKeys()).toEqual([]);
  });

  it("runs every call of the API with a hash-tag prefix", async () => {
    const performed: string[] = [];
    const batches: unknown[][] = [];
    const tq = createTickq({
      redis: adapter(),
      prefix: "{tq}:",
      jobs: {
        mail: (args: [string]) => void performed.push(args[0]),
        once: { perform: (args: [string]) => void performed.push(args[0]), uniqueKey: (args: [string]) => args[0] },
        boom: { retry: 0, perform: () => Promise.reject(new Error("boom")) },
      },
      ordered: { feed: { perform: (_id: string, payloads: unknown[]) => void batches.push(payloads) } },
      schedules: { every: { every: 60_000, job: "mail", args: ["scheduled"] } },
      logger: QUIET,
    });
    expect(await tq.enqueue("mail", ["a"], { jid: "own" })).toBe("own");
    expect(await tq.enqueue("mail", ["a"], { jid: "own" })).toBe("own");
    await tq.enqueueBulk([
      { name: "mail", args: ["b"] },
      { name: "mail", args: ["later"], delayMs: 600_000 },
    ]);
    const held = await tq.enqueue("once", ["u1"], { unique: "until-executed" });
    expect(await tq.enqueue("once", ["u1"], { unique: "until-executed" })).toBe(held);
    await tq.enqueue("boom", []);
    await tq.enqueueOrdered("feed", { id: "x", payload: 1 });
    await tq.enqueueOrderedBulk([
      { name: "feed", id: "x", payload: 2 },
      { name: "feed", id: "y", payload: 3 },
    ]);
    await tq.queues.pause("default");
    expect((await tq.queues.list()).find((q) => q.name === "default")?.paused).toBe(true);
    await tq.queues.resume("default");
    expect((await tq.jobs.find("own"))?.state).toBe("queued");
    expect((await tq.jobs.list("scheduled")).jobs.length).toBeGreaterThan(0);
    const report = await tq.tick({ budgetMs: 5_000 });
    expect(report.fetched).toBeGreaterThan(0);
    expect(performed.sort()).toEqual(expect.arrayContaining(["a", "b", "u1"]));
    expect(batches.length).toBeGreaterThan(0);
    expect(await tq.ticks()).toEqual([]);
    expect((await tq.schedules()).map((s) => s.name)).toContain("every");
    const stats = await tq.stats();
    expect(stats.processed).toBeGreaterThanOrEqual(4);
    expect(stats.dead).toBe(1);
    const history = await tq.stats.history(2);
    expect(history).toHaveLength(2);
    expect(history[1]!.processed).toBe(stats.processed);
    const dead = (await tq.jobs.list("dead")).jobs[0]!;
    await tq.jobs.retry(dead.jid);
    expect(await tq.jobs.deleteAll("queued", { queue: "default" })).toBeGreaterThanOrEqual(1);
    expect(await tq.jobs.deleteAll("scheduled")).toBeGreaterThanOrEqual(1);
    const keys = await allKeys();
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((k) => !k.startsWith("{tq}:"))).toEqual([]);
    await Promise.all(cc.client.nodes("master").map((node) => node.flushall()));
  }, 30_000);
});

describe("node-redis' cluster client", () => {
  it("offers no WAIT, so durability is refused at start, naming the adapters that can", () => {
    const adapter = nodeRedisAdapter(cc.nodeRedis);
    expect(adapter.wait).toBeUndefined();
    expect(() =>
      createTickq({ redis: adapter, prefix: "{tq}:", jobs: {}, durability: { replicas: 1 }, logger: QUIET }),
    ).toThrow(
      /durability needs an adapter that can run Redis WAIT \(ioredisAdapter, or nodeRedisAdapter over one Redis\)/,
    );
  });
});

describe("an adapter on a Redis Cluster that does not say it is one", () => {
  it("refuses every call through an adapter that does not declare the cluster, naming the fix, and writes nothing", async () => {
    const node = new Redis(cc.cluster.nodes[0]!);
    const undeclared = (redis: Redis | Cluster): RedisAdapter => ({
      evalsha: (sha, keys, args) => redis.evalsha(sha, keys.length, ...keys, ...args) as Promise<RedisReply>,
      eval: (script, keys, args) => redis.eval(script, keys.length, ...keys, ...args) as Promise<RedisReply>,
    });
    try {
      for (const [label, adapter] of [
        ["a cluster client", undeclared(cc.client)],
        ["a client of one node", undeclared(node)],
      ] as const) {
        const tq = createTickq({ redis: adapter, prefix: "plain:", jobs: { mail: () => {} }, logger: QUIET });
        for (const call of [() => tq.enqueue("mail", ["a"]), () => tq.tick(), () => tq.enqueue("mail", ["b"])]) {
          const error = await call().then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error, label).toBeInstanceOf(TickqError);
          expect((error as TickqError).code, label).toBe("BAD_OPTIONS");
          expect((error as Error).message, label).toMatch(
            /Redis Cluster.*Set `cluster: true` on your adapter.*prefix: "\{plain\}:"/,
          );
        }
      }
    } finally {
      node.disconnect();
    }
    expect(await allKeys()).toEqual([]);
  });
});
