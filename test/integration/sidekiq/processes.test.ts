// With a Sidekiq-compatible prefix a tick registers as a Sidekiq
// process does: its identity in `processes`, a heartbeat hash (info, busy,
// beat), and the work hashes of the jobs it runs, expiring with its lease.
// The interop suite (test/integration/sidekiq/interop/) reads them with real Ruby; here
// the keys themselves, on prefixes of our own (option set explicitly).
import { describe, expect, it } from "vitest";
import { sidekiqProcessOf } from "../../../src/sidekiq/process.js";
import { TickqError } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describe("sidekiqProcesses option", () => {
  it('is on by default only for prefix ""; hostname, tag and labels are checked', () => {
    expect(sidekiqProcessOf(undefined, "")).toEqual({ hostname: "tickq", tag: "", labels: ["tickq"] });
    expect(sidekiqProcessOf(undefined, "tickq:")).toBeUndefined();
    expect(sidekiqProcessOf(false, "")).toBeUndefined();
    expect(sidekiqProcessOf({ hostname: "web-1", tag: "app", labels: ["edge"] }, "ns:")).toEqual({
      hostname: "web-1",
      tag: "app",
      labels: ["tickq", "edge"],
    });
    expect(() => sidekiqProcessOf({ hostname: "a b" }, "")).toThrow(TickqError);
    expect(() => sidekiqProcessOf({ labels: [1 as never] }, "")).toThrow(/labels/);
  });
});

describe.each(adapterCases)("ticks as Sidekiq processes over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "sk-processes");
  const members = () => h.redis.smembers(`${h.prefix}processes`);

  it("a running tick is in `processes`, with Sidekiq's heartbeat fields and its running jobs; gone once it finishes", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const tq = h.make(
      { slow: async () => gate, quick: () => {} },
      {
        sidekiqProcesses: { tag: "t1" },
        queues: [
          ["default", 3],
          ["low", 1],
        ],
      },
    );
    const jid = await tq.enqueue("slow", [{ a: [1, "é"] }]);
    const ticking = tq.tick({ leaseMs: 5_000, concurrency: 4 });
    let identity: string | undefined;
    for (let i = 0; i < 100 && !identity; i++, await sleep(20)) identity = (await members())[0];
    expect(identity).toMatch(/^tickq:[0-9a-f]{16}$/);
    const key = h.prefix + identity!;
    // the first beat carrying the running job goes out within BEAT_MS of its start
    for (let i = 0; i < 100 && (await h.redis.hget(key, "busy")) !== "1"; i++) await sleep(25);
    const hb = await h.redis.hgetall(key);
    expect(hb).toMatchObject({ busy: "1", quiet: "false", rss: "0", rtt_us: "0" });
    expect(Number(hb.beat)).toBeGreaterThan(1e9);
    expect(JSON.parse(hb.info!)).toMatchObject({
      hostname: "tickq",
      identity,
      tag: "t1",
      labels: ["tickq"],
      concurrency: 4,
      queues: ["default", "low"],
      weights: [{ default: 3, low: 1 }],
      embedded: true,
    });
    const [queued] = await h.redis.lrange(`${h.prefix}inproc:${identity!.split(":")[1]}:default`, 0, -1);
    for (const suffix of [":work", ":workers"]) {
      const work = await h.redis.hgetall(key + suffix);
      const entries = Object.values(work).map((v) => JSON.parse(v));
      expect(entries).toEqual([{ queue: "default", payload: queued, run_at: expect.any(Number) }]);
      expect(JSON.parse(entries[0].payload).jid).toBe(jid);
      const ttl = await h.redis.pttl(key + suffix);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(5_000);
    }
    release();
    expect(await ticking).toMatchObject({ succeeded: 1 });
    expect(await members()).toEqual([]);
    expect(await h.redis.exists(key, `${key}:work`, `${key}:workers`)).toBe(0);
  });

  it("a tick that leaves a job behind stays listed until its lease expires; the next tick's begin prunes it", async () => {
    const tq = h.make({ stuck: () => new Promise(() => {}) }, { sidekiqProcesses: true });
    await tq.enqueue("stuck", []);
    const report = await tq.tick({ budgetMs: 300, graceMs: 50, leaseMs: 800 });
    expect(report.abandoned).toBe(1);
    const [identity] = await members();
    const key = h.prefix + identity!;
    expect(await h.redis.hget(key, "busy")).toBe("1");
    expect(await h.redis.hlen(`${key}:work`)).toBe(1);
    await sleep(900);
    expect(await h.redis.exists(key, `${key}:work`, `${key}:workers`)).toBe(0);
    await h.make({ other: () => {} }, { sidekiqProcesses: true }).tick({ budgetMs: 0 });
    expect(await members()).not.toContain(identity);
  });

  it("off: no key of Sidekiq's is written and an idle tick costs what it cost", async () => {
    const off = h.make({ a: () => {} });
    const on = h.make({ a: () => {} }, { sidekiqProcesses: true });
    expect((await off.tick()).roundTrips).toBe(2);
    expect(await h.redis.exists(`${h.prefix}processes`)).toBe(0);
    expect((await on.tick()).roundTrips).toBe(2);
  });
});
