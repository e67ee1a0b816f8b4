// A job moved from `schedule` or `retry` into its queue gets
// `enqueued_at` set to the move's time, as Sidekiq's poller re-pushes it, so
// Queue#latency and Sidekiq Web read the time it has been waiting, not the
// time it was first enqueued (or "not yet enqueued" for perform_in). The
// field is spliced into the text: every other byte is kept.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("enqueued_at on moves over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "enqueued-at");
  const queued = async (queue = "default") => h.redis.lrange(`${h.prefix}queue:${queue}`, 0, -1);
  const redisNow = async () => {
    const [sec, micro] = await h.redis.time();
    return Number(sec) + Number(micro) / 1e6;
  };

  it("a scheduled job has none until it is moved; then it is the move's time", async () => {
    const tq = h.make({ later: () => {} }, { queues: ["elsewhere"] });
    await tq.enqueue("later", [1], { delayMs: 1 });
    const [scheduled] = await h.redis.zrange(`${h.prefix}schedule`, "0", "-1");
    expect(JSON.parse(scheduled!).enqueued_at).toBeUndefined();
    await new Promise((r) => setTimeout(r, 20));
    const before = await redisNow();
    expect(await tq.tick()).toMatchObject({ scheduled: 1, fetched: 0 }); // serves another queue: moves only
    const [moved] = await queued();
    expect(moved!.startsWith(`${scheduled!.slice(0, -1)},"enqueued_at":`)).toBe(true);
    const job = JSON.parse(moved!);
    expect(job.enqueued_at).toBeGreaterThanOrEqual(Math.floor(before * 1000) / 1000);
    expect(job.enqueued_at).toBeLessThanOrEqual(await redisNow());
    expect(job.created_at).toBeLessThan(job.enqueued_at);
  });

  it("a retried job's enqueued_at is replaced in place, once, every other byte kept", async () => {
    const raw =
      '{"class":"flaky","args":[9007199254740993,1.0,[]],"jid":"r1","queue":"default","retry":true,"enqueued_at":1000.5,"extra":{"a":[]}}';
    const seen: number[] = [];
    const tq = h.make({ flaky: (_args: unknown[], ctx) => void seen.push(Number(ctx.payload.enqueued_at)) });
    await h.redis.zadd(`${h.prefix}retry`, 0, raw);
    const before = await redisNow();
    expect(await h.make({ flaky: () => {} }, { queues: ["elsewhere"] }).tick()).toMatchObject({ scheduled: 1 });
    const [moved] = await queued();
    expect(moved).toMatch(
      /^\{"class":"flaky","args":\[9007199254740993,1\.0,\[\]\],"jid":"r1","queue":"default","retry":true,"enqueued_at":\d+\.\d{3},"extra":\{"a":\[\]\}\}$/,
    );
    expect(moved!.match(/"enqueued_at"/g)).toHaveLength(1);
    expect(await tq.tick()).toMatchObject({ succeeded: 1 });
    expect(seen[0]).toBeGreaterThanOrEqual(Math.floor(before));
  });

  it("a job moved from the retry set keeps its queue's latency small", async () => {
    const tq = h.make({ fails: () => {} }, { queues: ["elsewhere"] }); // moves only
    const jid = await h.make({ fails: () => {} }).enqueue("fails", []);
    const [first] = await queued();
    // An hour old, as the example: Queue#latency would read 3,600 s without the refresh.
    const old = first!
      .replace(/"enqueued_at":[\d.]+/, '"enqueued_at":1.000')
      .replace(/"created_at":[\d.]+/, '"created_at":1.000');
    await h.redis.del(`${h.prefix}queue:default`);
    await h.redis.zadd(`${h.prefix}retry`, 0, old);
    await tq.tick();
    const [moved] = await queued();
    expect(JSON.parse(moved!)).toMatchObject({ jid, created_at: 1 });
    expect((await redisNow()) - JSON.parse(moved!).enqueued_at).toBeLessThan(5);
  });
});
