// `partitions: "auto"` on a real Redis Cluster of three masters (ioredis'
// Cluster and node-redis' createCluster): the count comes from the cluster's
// slots (three masters, three partitions, one on each), is stored, and a
// later start adopts the stored count (a count that leaves a master idle is
// moved to the shape's by migratePartitions with "auto"); an explicit other count is refused
// naming the stored one; a tagged prefix is refused at createTickq; on one
// Redis, "auto" is today's one-partition layout.
import { Redis } from "ioredis";
import { describe, expect, inject, it } from "vitest";
import { redisThrottle } from "../../../src/http/throttle.js";
import { createTickq, migratePartitions, TickqError } from "../../../src/index.js";
import { partitionPrefixes, slotOf } from "../../../src/partitions/layout.js";
import { ioredisAdapter } from "../../../src/redis/ioredis.js";
import { useClusterClients } from "../../helpers/private-cluster.js";

const QUIET = { info: () => {}, warn: () => {}, error: () => {} };

// The cluster clients tickq runs over; `cc.client` (ioredis) also reads every master for the assertions.
const cc = useClusterClients();
const clusterClients = cc.adapters;

const refusal = async (run: () => unknown): Promise<TickqError> => {
  try {
    await run();
  } catch (error) {
    return error as TickqError;
  }
  throw new Error("not refused");
};

describe.each(clusterClients)('partitions: "auto" over a Redis Cluster, through $name', ({ name, adapter }) => {
  it("finds three partitions, one on each master, stores the count and runs jobs there", async () => {
    const prefix = `auto-${name}:`;
    const ran: number[] = [];
    const heard: string[] = [];
    const wrapped: string[] = [];
    const tq = createTickq({
      redis: adapter(),
      prefix,
      partitions: "auto",
      jobs: { step: ([n]: [number]) => void ran.push(n) },
      logger: QUIET,
    });
    // Before the first call: the count is not known yet, listeners and middleware wait for it.
    expect(tq.partitions).toBe(0);
    tq.on("succeeded", (e) => void heard.push(e.jid));
    tq.use(async (job, _ctx, next) => {
      wrapped.push(job.payload.jid);
      return next();
    });
    const jids = await tq.enqueueBulk(Array.from({ length: 30 }, (_, n) => ({ name: "step" as const, args: [n] })));
    expect(tq.partitions).toBe(3);
    expect(await cc.client.get(`${prefix}partitions`)).toBe("3");

    // Every master holds the keys of exactly one partition, each partition in one slot.
    const prefixes = partitionPrefixes(prefix, 3);
    const masters = cc.client.nodes("master");
    const held = await Promise.all(
      masters.map(async (node) => {
        const keys = (await node.keys(`${prefix}{*`)) as string[];
        return new Set(keys.map((key) => prefixes.findIndex((p) => key.startsWith(p))));
      }),
    );
    expect(held.map((s) => s.size)).toEqual([1, 1, 1]);
    expect(new Set(held.flatMap((s) => [...s])).size).toBe(3);
    for (const p of prefixes) {
      const keys = (await Promise.all(masters.map((node) => node.keys(`${p}*`)))).flat() as string[];
      expect(new Set(keys.map(slotOf)).size).toBe(1);
    }

    for (let i = 0; i < 10 && ran.length < 30; i++) await tq.tick({ budgetMs: 3_000 });
    expect(ran.sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, n) => n));
    expect(heard.sort()).toEqual([...jids].sort());
    expect(wrapped.sort()).toEqual([...jids].sort());
    expect((await tq.stats()).processed).toBe(30);
  }, 60_000);

  it("adopts a count already stored for the prefix, and an explicit other count is refused naming it", async () => {
    const prefix = `auto-stored-${name}:`;
    const jobs = { step: () => {} };
    const six = createTickq({ redis: adapter(), prefix, partitions: 6, jobs, logger: QUIET });
    await six.enqueue("step", []);
    const quiet: string[] = [];
    const auto = createTickq({
      redis: adapter(),
      prefix,
      partitions: "auto",
      jobs,
      logger: { ...QUIET, warn: (line: string) => void quiet.push(line) },
    });
    expect((await auto.stats()).queues.default).toBe(1);
    expect(auto.partitions).toBe(6);

    // A stored count that leaves a master idle is kept, with a warning saying so.
    const two = `auto-two-${name}:`;
    await createTickq({ redis: adapter(), prefix: two, partitions: 2, jobs, logger: QUIET }).stats();
    const warned: string[] = [];
    const logger = { ...QUIET, warn: (line: string) => void warned.push(line) };
    const adopting = createTickq({ redis: adapter(), prefix: two, partitions: "auto", jobs, logger });
    await adopting.stats();
    expect(adopting.partitions).toBe(2);
    expect(warned).toEqual([
      expect.stringMatching(/laid out in 2 partitions \(stored\), and 1 of the cluster's 3 masters serve none/),
    ]);
    // Six partitions over three masters leave none idle: nothing to say.
    expect(quiet).toEqual([]);
    // The fix the warning names: migrate with "auto" moves the 2 partitions to the 3 the shape asks for.
    await adopting.enqueue("step", [], { delayMs: 60_000 });
    const moved = await migratePartitions({ redis: adapter(), prefix: two, partitions: "auto", logger: QUIET });
    expect(moved).toMatchObject({ partitions: 3, fromPartitions: 2, left: [] });
    expect(moved.moved.scheduled + moved.stayed).toBe(1);
    const grown = createTickq({ redis: adapter(), prefix: two, partitions: "auto", jobs, logger });
    expect((await grown.stats()).scheduled).toBe(1);
    expect(grown.partitions).toBe(3);
    expect(warned).toHaveLength(1);

    const fresh = `auto-fresh-${name}:`;
    const first = createTickq({ redis: adapter(), prefix: fresh, partitions: "auto", jobs, logger: QUIET });
    await first.stats();
    const four = createTickq({ redis: adapter(), prefix: fresh, partitions: 4, jobs, logger: QUIET });
    const error = await refusal(() => four.stats());
    expect(error.code).toBe("BAD_OPTIONS");
    expect(error.message).toMatch(/partitions: 4, but the keys .* are laid out in 3 partitions.*Use partitions: 3/);
  }, 30_000);

  it("dashboard sessions and the login throttle work before the first call has found the count", async () => {
    const prefix = `auto-dash-${name}:`;
    const tq = createTickq({ redis: adapter(), prefix, partitions: "auto", jobs: {}, logger: QUIET });
    expect(await tq.guards.sessionEnded("n1")).toBe(false);
    await tq.guards.endSession("n1", 60_000);
    expect(await tq.guards.sessionEnded("n1")).toBe(true);
    expect(tq.partitions).toBe(3);
    const throttle = redisThrottle(tq, () => "10.0.0.1")!;
    const fresh = redisThrottle(createTickq({ redis: adapter(), prefix, partitions: "auto", jobs: {} }), () => "x")!;
    expect(await fresh.blockedFor("10.0.0.2")).toBe(0);
    for (let i = 0; i < 12; i++) await throttle.failed("10.0.0.1");
    expect(await throttle.blockedFor("10.0.0.1")).toBeGreaterThan(0);
  });

  it("two processes starting at once on a fresh prefix end up with one count", async () => {
    const prefix = `auto-race-${name}:`;
    const makers = Array.from({ length: 4 }, () =>
      createTickq({ redis: adapter(), prefix, partitions: "auto", jobs: {}, logger: QUIET }),
    );
    await Promise.all(makers.map((tq) => tq.stats()));
    expect(makers.map((tq) => tq.partitions)).toEqual([3, 3, 3, 3]);
  });

  it("refuses a prefix with a hash tag at createTickq, naming the fix", () => {
    let error: unknown;
    try {
      createTickq({ redis: adapter(), prefix: "{tq}:", partitions: "auto", jobs: {}, logger: QUIET });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TickqError);
    expect((error as Error).message).toMatch(/has one.*Drop the tag \(prefix: ":"\)|Drop the tag/);
  });
});

describe('partitions: "auto" on one Redis', () => {
  it("is today's layout: one partition under the prefix, no count stored", async () => {
    const redis = new Redis(inject("redisUrl"));
    const prefix = `auto-single-${Date.now()}:`;
    try {
      const tq = createTickq({ redis: ioredisAdapter(redis), prefix, partitions: "auto", jobs: { step: () => {} } });
      expect(tq.partitions).toBe(1);
      await tq.enqueue("step", []);
      expect(await redis.llen(`${prefix}queue:default`)).toBe(1);
      expect(await redis.exists(`${prefix}partitions`)).toBe(0);
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });
});
