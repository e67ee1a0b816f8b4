// A migration does not move ordered ids, workflow runs, running jobs or flow
// jobs parked on a busy key, and the new layout never runs what stays in the
// old one. So a move is refused,
// before anything moves or is marked, while the old layout holds any of them:
// the old deployment can still finish them. `leave: true` moves the rest and
// reports what stays. The new count is stored over what stays behind only when
// the run storing it is told `leave` too: what came in during the move, or what an
// earlier run of the move was told to leave.
import { expect, it } from "vitest";
import { migratePartitions } from "../../../src/index.js";
import { partitionOfOrdered } from "../../../src/partitions/route.js";
import type { RedisAdapter } from "../../../src/redis/types.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { cutBeforeFinish } from "../../helpers/migration-cuts.js";

const QUIET = { info: () => {}, warn: () => {}, error: () => {} };

describeOverAdapters(adapterCases, "a migration that would strand work, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "part-strand");
  const migrate = (extra: { leave?: boolean; redis?: RedisAdapter; from?: string } = {}) =>
    migratePartitions({ redis: h.adapter, prefix: h.prefix, partitions: 3, logger: QUIET, ...extra });
  // A one-partition layout under a prefix of its own (as on a cluster, {tq}:): where `leave` may leave work.
  // Under the same prefix on one Redis, the new deployment would refuse to start while work stays there.
  const OLD = () => `${h.prefix}old:`;
  // The mark stands over the one ordered id left in the old layout; a run told to leave it stores 3.
  const expectMarkedUntilTold = async () => {
    expect(await countKey()).toMatch(/^1>3 /);
    expect(await migrate({ from: OLD(), leave: true })).toMatchObject({
      moved: { queued: 0 },
      left: ["1 ordered ids"],
    });
    expect(await countKey()).toBe("3");
  };
  const countKey = () => h.redis.get(`${h.prefix}partitions`);

  it("is refused while an ordered id waits, moving nothing; once the old ticks ran it, the move goes through", async () => {
    const runs: string[] = [];
    const old = h.make({ step: () => {} }, { ordered: { idx: { perform: async (id: string) => void runs.push(id) } } });
    await old.enqueueOrdered("idx", { id: "a", payload: 1 });
    await old.enqueue("step", []);

    const refused = await migrate().catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "BAD_OPTIONS" });
    expect((refused as Error).message).toMatch(/1 ordered ids.*Nothing was moved/s);
    expect((refused as Error).message).toMatch(/--leave/);
    // It names the ordered ids' name, as `tickq stats` (given no names) shows no ordered id.
    expect((refused as Error).message).toMatch(/1 ordered ids \(idx\)/);
    expect((refused as Error).message).not.toMatch(/`tickq stats` shows them/);
    expect(await countKey()).toBeNull();
    expect((await old.stats()).queues).toEqual({ default: 1 });

    // The old deployment finishes the ordered id, here with the job beside it.
    await old.tick({ budgetMs: 2_000 });
    expect(runs).toEqual(["a"]);
    await old.enqueue("step", []);
    expect(await migrate()).toMatchObject({ moved: { queued: 1 }, left: [] });
    expect(await countKey()).toBe("3");
  });

  it("is refused while a workflow run sleeps; with leave: true it moves the jobs and reports the run left behind", async () => {
    const old = h.make(
      { step: () => {} },
      { prefix: OLD(), workflows: { nap: { run: async (_: null, step) => step.sleep("nap", 3_600_000) } } },
    );
    await old.workflows.start("nap", null);
    await old.tick({ budgetMs: 1_000 });
    await old.enqueue("step", []);

    await expect(migrate({ from: OLD() })).rejects.toMatchObject({
      code: "BAD_OPTIONS",
      message: expect.stringMatching(/1 workflow runs/),
    });
    expect(await countKey()).toBeNull();

    const report = await migrate({ from: OLD(), leave: true });
    expect(report).toMatchObject({ moved: { queued: 1 }, left: ["1 workflow runs"] });
    expect(await countKey()).toBe("3");
  });

  it("is refused while a job of the old layout runs (a tick gave up on its handler)", async () => {
    let release = () => {};
    const old = h.make({ hang: () => new Promise<void>((resolve) => (release = resolve)) });
    await old.enqueue("hang", []);
    const report = await old.tick({ budgetMs: 300, graceMs: 50 });
    expect(report.abandoned).toBe(1);
    expect((await old.stats()).inflight).toBe(1);

    await expect(migrate()).rejects.toMatchObject({
      code: "BAD_OPTIONS",
      message: expect.stringMatching(/1 running jobs/),
    });
    expect(await countKey()).toBeNull();
    release();
  });

  it("is refused while flow jobs wait parked on a busy key, which only an ack on that key would send on", async () => {
    let release = () => {};
    const old = h.make({
      sync: {
        concurrency: { key: () => "acct", limit: 1 },
        perform: () => new Promise<void>((resolve) => (release = resolve)),
      },
    });
    await old.enqueueBulk(Array.from({ length: 3 }, () => ({ name: "sync" as const, args: [] })));
    await old.tick({ budgetMs: 300, graceMs: 50 });
    expect((await old.stats()).flow.sync).toMatchObject({ locksHeld: 1, waiting: 2 });

    await expect(migrate()).rejects.toMatchObject({
      code: "BAD_OPTIONS",
      message: expect.stringMatching(/2 flow jobs parked on busy keys, 1 running jobs/),
    });
    expect(await countKey()).toBeNull();
    release();
  });

  it("on one Redis, from one partition under the same prefix, refuses leave: the new deployment could not start", async () => {
    const old = h.make({ step: () => {} }, { ordered: { idx: { perform: async () => {} } } });
    await old.enqueueOrdered("idx", { id: "a", payload: 1 });
    await old.enqueue("step", []);
    await expect(migrate({ leave: true })).rejects.toMatchObject({
      code: "BAD_OPTIONS",
      message: expect.stringMatching(/1 ordered ids \(idx\).*leave: true cannot help here.*Nothing was moved/s),
    });
    expect(await countKey()).toBeNull();
    expect((await old.stats()).queues).toEqual({ default: 1 });
  });

  it("a run resuming a marked move stores the count over an ordered id left behind only when told to leave it too", async () => {
    const old = h.make({ step: () => {} }, { prefix: OLD(), ordered: { idx: { perform: async () => {} } } });
    await old.enqueueOrdered("idx", { id: "a", payload: 1 });
    await old.enqueue("step", []);
    // Cut before the new count is stored: the mark stays.
    const noFinish = cutBeforeFinish(h.adapter);
    await expect(migrate({ from: OLD(), leave: true, redis: noFinish })).rejects.toThrow(/cut before finish/);
    expect(await countKey()).toMatch(/^1>3 /);

    // Resumed without leave: the mark stays, and the refusal says how to finish.
    const refused = await migrate({ from: OLD() }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "BAD_OPTIONS" });
    expect((refused as Error).message).toMatch(
      /still holds 1 ordered ids.*stays marked.*leave: true \(CLI: --leave\)/s,
    );
    await expectMarkedUntilTold();
  });

  it("an ordered id enqueued by an old client while the jobs move is not stranded unasked: the count stays marked", async () => {
    const old = h.make({ step: () => {} }, { prefix: OLD(), ordered: { idx: { perform: async () => {} } } });
    await old.enqueueBulk(Array.from({ length: 3 }, () => ({ name: "step" as const, args: [] })));
    // The old client enqueues as the first job is adopted into the new layout.
    let arrived = false;
    const arriving: RedisAdapter = {
      ...h.adapter,
      cluster: h.adapter.cluster,
      evalsha: async (sha, keys, args) => {
        if (!arrived && keys.some((k) => k.includes("adopted:"))) {
          arrived = true;
          await old.enqueueOrdered("idx", { id: "late", payload: 1 });
        }
        return h.adapter.evalsha(sha, keys, args);
      },
    };
    await expect(migrate({ from: OLD(), redis: arriving })).rejects.toMatchObject({
      code: "BAD_OPTIONS",
      message: expect.stringMatching(/still holds 1 ordered ids, .*\(they came in while it moved/),
    });
    expect(arrived).toBe(true);
    await expectMarkedUntilTold();
  });

  it("counts an ordered id once, whatever its id: the payloads of an id named like a state key are no ids", async () => {
    const old = h.make({ step: () => {} }, { prefix: OLD(), ordered: { idx: { perform: async () => {} } } });
    // Their payloads sit in o:idx:p:ready and o:idx:p:a:dead, zsets whose keys end as the ready and dead sets do.
    await old.enqueueOrdered("idx", { id: "ready", payload: 1 });
    await old.enqueueOrdered("idx", { id: "ready", payload: 2 });
    await old.enqueueOrdered("idx", { id: "a:dead", payload: 1 });
    await old.enqueue("step", []);

    await expect(migrate({ from: OLD() })).rejects.toMatchObject({
      code: "BAD_OPTIONS",
      message: expect.stringMatching(/still holds 2 ordered ids,? /),
    });
    expect(await migrate({ from: OLD(), leave: true })).toMatchObject({
      moved: { queued: 1 },
      left: ["2 ordered ids"],
    });
  });

  it("a sweep of the old partitions, the new count stored, is not refused for the new deployment's own ordered ids", async () => {
    await h.make({}, { partitions: 2, logger: QUIET }).stats();
    expect(await migrate()).toMatchObject({ partitions: 3, fromPartitions: 2, left: [] });
    const runs: string[] = [];
    const now = h.make(
      { step: () => {} },
      { partitions: 3, logger: QUIET, ordered: { idx: { perform: async (id: string) => void runs.push(id) } } },
    );
    // In partition 0 of 3, whose key space partition 0 of 2 shares: the sweep reads it as the old layout's.
    const id = ["a", "b", "c", "d", "e", "f", "g", "h"].find((id) => partitionOfOrdered("idx", id, 3) === 0)!;
    await now.enqueueOrdered("idx", { id, payload: 1 });

    const sweep = await migratePartitions({
      redis: h.adapter,
      prefix: h.prefix,
      partitions: 3,
      fromPartitions: 2,
      logger: QUIET,
    });
    expect(sweep).toMatchObject({ partitions: 3, fromPartitions: 2, moved: { queued: 0 }, left: ["1 ordered ids"] });
    expect(await countKey()).toBe("3");
    await now.tick({ budgetMs: 2_000 });
    expect(runs).toEqual([id]);
  });
});
