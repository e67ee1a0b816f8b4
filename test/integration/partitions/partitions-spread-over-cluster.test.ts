import { describe, expect, it } from "vitest";
import { createTickq, migratePartitions, TickqError } from "../../../src/index.js";
import { partitionPrefixes, slotOf } from "../../../src/partitions/layout.js";
import { useClusterClients } from "../../helpers/private-cluster.js";

const QUIET = { info: () => {}, warn: () => {}, error: () => {} };

// The cluster clients tickq runs over; `cc.client` (ioredis) also reads every master for the assertions.
const cc = useClusterClients();
const clusterClients = cc.adapters;

/** Every master's keys, the masters in the order of the partitions they hold. */
async function keysPerMaster(): Promise<string[][]> {
  const masters = await Promise.all(cc.client.nodes("master").map((node) => node.keys("*")));
  const partitionOn = (keys: string[]) => keys.find((k) => /^tq:\{p\d/.test(k))?.slice(5) ?? "~";
  return masters.sort((a, b) => partitionOn(a).localeCompare(partitionOn(b))).map((keys) => keys.sort());
}

describe.each(clusterClients)("partitions over a Redis Cluster, through $name", ({ adapter }) => {
  it("spreads the partitions over the masters and runs jobs, ordered ids, flow keys and the jobs API across them", async () => {
    const performed: string[] = [];
    const batches: unknown[][] = [];
    let running = 0;
    let most = 0;
    const tq = createTickq({
      redis: adapter(),
      prefix: "tq:",
      partitions: 3,
      jobs: {
        mail: (args: [string]) => void performed.push(args[0]),
        once: { perform: (args: [string]) => void performed.push(args[0]), uniqueKey: (args: [string]) => args[0] },
        sync: {
          perform: async () => {
            most = Math.max(most, ++running);
            await new Promise((resolve) => setTimeout(resolve, 10));
            running--;
          },
          concurrency: { key: () => "acct", limit: 1 },
        },
        boom: { retry: 0, perform: () => Promise.reject(new Error("boom")) },
      },
      ordered: { feed: { perform: (_id: string, payloads: unknown[]) => void batches.push(payloads) } },
      schedules: { every: { every: 60_000, job: "mail", args: ["scheduled"] } },
      logger: QUIET,
    });
    await tq.enqueueBulk(Array.from({ length: 30 }, (_, n) => ({ name: "mail" as const, args: [`m${n}`] })));
    expect(await tq.enqueue("mail", ["own"], { jid: "own" })).toBe("own");
    expect(await tq.enqueue("mail", ["own"], { jid: "own" })).toBe("own");
    const held = await tq.enqueue("once", ["u1"], { unique: "until-executed" });
    expect(await tq.enqueue("once", ["u1"], { unique: "until-executed" })).toBe(held);
    await tq.enqueueBulk(Array.from({ length: 4 }, () => ({ name: "sync" as const, args: [] })));
    const boom = await tq.enqueue("boom", []);
    await tq.enqueueOrderedBulk(
      ["x", "y", "z", "w"].flatMap((id) => [1, 2].map((payload) => ({ name: "feed", id, payload }))),
    );
    await tq.enqueue("mail", ["later"], { delayMs: 600_000 });

    // Each partition's keys in one slot of its own master; every master holds one partition.
    const perMaster = await keysPerMaster();
    const prefixes = partitionPrefixes("tq:", 3);
    perMaster.forEach((keys, k) => {
      const own = keys.filter((key) => key.startsWith(prefixes[k]!));
      expect(own.length).toBeGreaterThan(0);
      expect(new Set(own.map(slotOf)).size).toBe(1);
    });
    expect((await tq.stats()).queues.default).toBeGreaterThanOrEqual(36);
    expect((await tq.jobs.find("own"))?.state).toBe("queued");

    for (let i = 0; i < 10 && (await tq.stats()).queues.default! > 0; i++) await tq.tick({ budgetMs: 5_000 });
    expect(performed).toEqual(expect.arrayContaining(["m0", "m29", "own", "u1"]));
    expect(most).toBe(1);
    expect(batches.map((b) => b.length)).toEqual([2, 2, 2, 2]);
    const stats = await tq.stats();
    expect(stats).toMatchObject({ dead: 1, scheduled: 1 });
    expect((await tq.jobs.list("dead")).jobs.map((j) => j.jid)).toEqual([boom]);
    expect((await tq.jobs.retry(boom)).state).toBe("queued");
    await tq.queues.pause("default");
    expect((await tq.queues.list()).find((q) => q.name === "default")).toMatchObject({ paused: true, size: 1 });
    await tq.queues.resume("default");
    expect(await tq.jobs.deleteAll("scheduled")).toBe(1);
    expect((await tq.schedules()).map((s) => s.name)).toEqual(["every"]);
    await Promise.all(cc.client.nodes("master").map((node) => node.flushall()));
  }, 60_000);

  it("migrates a one-slot layout ({tq}:) into three partitions on the masters, losing nothing", async () => {
    const ran: number[] = [];
    const jobs = { step: ([n]: [number]) => void ran.push(n) };
    const ordered = { feed: { retry: false, perform: () => Promise.reject(new Error("boom")) } };
    const old = createTickq({ redis: adapter(), prefix: "{tq}:", jobs, ordered, logger: QUIET });
    // Two ordered ids dead first: their entries move with the jobs.
    await old.enqueueOrderedBulk(["x", "y"].map((id) => ({ name: "feed", id, payload: 1 })));
    await old.tick({ budgetMs: 2_000 });
    await old.enqueueBulk(Array.from({ length: 20 }, (_, n) => ({ name: "step" as const, args: [n] })));
    await old.enqueue("step", [99], { delayMs: 3_600_000 });
    const report = await migratePartitions({
      redis: adapter(),
      prefix: "tq:",
      from: "{tq}:",
      partitions: 3,
      logger: QUIET,
    });
    expect(report).toEqual({
      partitions: 3,
      fromPartitions: 1,
      moved: { dead: 0, retry: 0, scheduled: 1, queued: 20, orderedDead: 2 },
      stayed: 0,
      left: [],
    });
    const tq = createTickq({ redis: adapter(), prefix: "tq:", partitions: 3, jobs, ordered, logger: QUIET });
    expect((await tq.stats()).scheduled).toBe(21);
    expect((await tq.stats()).ordered.feed?.dead).toBe(2);
    for (let i = 0; i < 5 && ran.length < 20; i++) await tq.tick({ budgetMs: 3_000 });
    expect(ran.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect((await old.stats()).scheduled).toBe(0);
    await Promise.all(cc.client.nodes("master").map((node) => node.flushall()));
  }, 30_000);

  it("refuses to move 3 partitions to 6 while ordered ids or a workflow run would stay behind on any master", async () => {
    const old = createTickq({
      redis: adapter(),
      prefix: "tq:",
      partitions: 3,
      jobs: { step: () => {} },
      ordered: { feed: { perform: () => {} } },
      workflows: { nap: { run: async (_: null, step) => step.sleep("nap", 3_600_000) } },
      logger: QUIET,
    });
    await old.enqueueOrderedBulk(["x", "y", "z", "w"].map((id) => ({ name: "feed", id, payload: 1 })));
    await old.workflows.start("nap", null);
    await old.enqueue("step", []);
    const move = (leave?: boolean) =>
      migratePartitions({ redis: adapter(), prefix: "tq:", partitions: 6, logger: QUIET, ...(leave ? { leave } : {}) });
    await expect(move()).rejects.toMatchObject({
      code: "BAD_OPTIONS",
      message: expect.stringMatching(
        /in 3 partitions still holds 4 ordered ids \(feed\), 1 workflow runs.*Nothing was moved/s,
      ),
    });
    expect(await cc.client.get("tq:partitions")).toBe("3");
    expect(await move(true)).toMatchObject({ partitions: 6, left: ["4 ordered ids", "1 workflow runs"] });
    await Promise.all(cc.client.nodes("master").map((node) => node.flushall()));
  }, 30_000);

  it("moves 3 partitions to 6, 6 to 2 and 2 to one across the masters, a run cut half-way finishing on the next, losing nothing", async () => {
    const ran: string[] = [];
    const jobs = {
      step: ([label]: [string]) => void ran.push(label),
      boom: { retry: 0, perform: () => Promise.reject(new Error("boom")) },
      flaky: { retry: 3, perform: () => Promise.reject(new Error("again")) },
    };
    const three = createTickq({ redis: adapter(), prefix: "tq:", partitions: 3, jobs, logger: QUIET });
    await three.enqueueBulk([0, 1, 2].map((n) => ({ name: "boom" as const, args: [n] })));
    await three.enqueueBulk([0, 1].map((n) => ({ name: "flaky" as const, args: [n] })));
    await three.tick({ budgetMs: 3_000 });
    const labels = Array.from({ length: 24 }, (_, n) => `q${String(n).padStart(2, "0")}`);
    await three.enqueueBulk(labels.map((label) => ({ name: "step" as const, args: [label] })));
    await three.enqueue("step", ["later"], { delayMs: 3_600_000 });
    expect(await three.stats()).toMatchObject({ dead: 3, retry: 2, scheduled: 1, queues: { default: 24 } });

    let calls = 0;
    const base = adapter();
    const cut = async <T>(reply: Promise<T>): Promise<T> => {
      const value = await reply;
      if (++calls === 40) throw new Error("cut");
      return value;
    };
    const cutting = {
      ...base,
      cluster: base.cluster,
      evalsha: (sha: string, keys: string[], args: string[]) => cut(base.evalsha(sha, keys, args)),
      eval: (script: string, keys: string[], args: string[]) => cut(base.eval(script, keys, args)),
    };
    await expect(migratePartitions({ redis: cutting, prefix: "tq:", partitions: 6, logger: QUIET })).rejects.toThrow(
      /cut/,
    );
    await expect(
      createTickq({ redis: adapter(), prefix: "tq:", partitions: "auto", jobs, logger: QUIET }).stats(),
    ).rejects.toThrow(/being moved from 3 to 6 partitions/);
    const six = await migratePartitions({ redis: adapter(), prefix: "tq:", partitions: 6, logger: QUIET });
    expect(six).toMatchObject({ partitions: 6, fromPartitions: 3, left: [] });
    const onSix = createTickq({ redis: adapter(), prefix: "tq:", partitions: "auto", jobs, logger: QUIET });
    expect(await onSix.stats()).toMatchObject({ dead: 3, retry: 2, scheduled: 25 });
    expect(onSix.partitions).toBe(6);
    // Six partitions on three masters: two on each.
    const perMaster = await Promise.all(cc.client.nodes("master").map((node) => node.keys("tq:{p*")));
    const holders = partitionPrefixes("tq:", 6).map((p) =>
      perMaster.findIndex((keys) => keys.some((k) => k.startsWith(p))),
    );
    expect([0, 1, 2].map((m) => holders.filter((h) => h === m).length)).toEqual([2, 2, 2]);

    const two = await migratePartitions({ redis: adapter(), prefix: "tq:", partitions: 2, logger: QUIET });
    expect(two).toEqual({
      partitions: 2,
      fromPartitions: 6,
      moved: { dead: 3, retry: 2, scheduled: 25, queued: 0, orderedDead: 0 },
      stayed: 0,
      left: [],
    });
    const onTwo = createTickq({ redis: adapter(), prefix: "tq:", partitions: 2, jobs, logger: QUIET });
    for (let i = 0; i < 6 && ran.length < labels.length; i++) await onTwo.tick({ budgetMs: 3_000 });
    expect([...ran].sort()).toEqual(labels);
    expect(await onTwo.stats()).toMatchObject({ dead: 3, retry: 2, scheduled: 1 });

    // Back to one partition: on a cluster it needs a prefix with a hash tag, refused before anything is marked.
    await expect(migratePartitions({ redis: adapter(), prefix: "tq:", partitions: 1, logger: QUIET })).rejects.toThrow(
      /hash tag/,
    );
    expect(await cc.client.get("tq:partitions")).toBe("2");
    const one = await migratePartitions({ redis: adapter(), prefix: "tq:", to: "{tq}:", partitions: 1, logger: QUIET });
    expect(one).toMatchObject({ partitions: 1, fromPartitions: 2, moved: { dead: 3, retry: 2, scheduled: 1 } });
    const single = createTickq({ redis: adapter(), prefix: "{tq}:", jobs, logger: QUIET });
    expect(await single.stats()).toMatchObject({ dead: 3, retry: 2, scheduled: 1 });
    await Promise.all(cc.client.nodes("master").map((node) => node.flushall()));
  }, 60_000);

  it("refuses a prefix without a hash tag with one partition, naming both fixes", () => {
    const error = (() => {
      try {
        createTickq({ redis: adapter(), prefix: "tq:", jobs: {}, logger: QUIET });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(TickqError);
    expect((error as Error).message).toMatch(
      /prefix: "\{tq\}:".*or spread the keys over the cluster with partitions: N/,
    );
  });
});
