import { describe, expect, it } from "vitest";
import { TickqError } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("enqueue over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "enqueue");
  const jobs = {
    sendEmail: async (_args: [string]) => {},
    report: { perform: async () => {}, queue: "reports", retry: 3 },
  };

  it("pushes Sidekiq's job JSON to queue:NAME and registers the queue", async () => {
    const tq = h.make(jobs);
    const before = Number((await h.redis.time())[0]);
    const jid = await tq.enqueue("sendEmail", ["a@b.c"]);
    expect(jid).toMatch(/^[0-9a-f]{24}$/);
    const [raw] = await h.redis.lrange(`${h.prefix}queue:default`, 0, -1);
    const job = JSON.parse(raw!);
    expect(job).toMatchObject({ class: "sendEmail", args: ["a@b.c"], jid, queue: "default", retry: true });
    expect(job.created_at).toBeGreaterThanOrEqual(before);
    expect(job.enqueued_at).toBe(job.created_at);
    expect(await h.redis.smembers(`${h.prefix}queues`)).toEqual(["default"]);
  });

  it("keeps an empty args array an array", async () => {
    const tq = h.make(jobs);
    await tq.enqueue("report", []);
    const [raw] = await h.redis.lrange(`${h.prefix}queue:reports`, 0, -1);
    expect(raw).toContain('"args":[]');
    expect(JSON.parse(raw!).retry).toBe(3);
  });

  it("uses the job's queue and retry, overridden by enqueue options", async () => {
    const tq = h.make(jobs);
    await tq.enqueue("report", [], { queue: "urgent", retry: false });
    const job = JSON.parse((await h.redis.rpop(`${h.prefix}queue:urgent`))!);
    expect(job).toMatchObject({ queue: "urgent", retry: false });
  });

  it("schedules delayed jobs in `schedule` scored by Redis time", async () => {
    const tq = h.make(jobs);
    const now = Number((await h.redis.time())[0]);
    await tq.enqueue("sendEmail", ["x"], { delayMs: 60_000 });
    const at = new Date(Date.now() + 3_600_000);
    await tq.enqueue("sendEmail", ["y"], { at });
    const entries = await h.redis.zrange(`${h.prefix}schedule`, "0", "-1", "WITHSCORES");
    expect(entries).toHaveLength(4);
    expect(Number(entries[1])).toBeGreaterThanOrEqual(now + 59);
    expect(Number(entries[1])).toBeLessThanOrEqual(now + 62);
    expect(Number(entries[3])).toBeCloseTo(at.getTime() / 1000, 2);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(0);
  });

  it("enqueues in bulk in order, in chunks", async () => {
    const tq = h.make(jobs);
    const jids = await tq.enqueueBulk(
      Array.from({ length: 2_500 }, (_, i) => ({ name: "sendEmail", args: [`u${i}`] })),
    );
    expect(new Set(jids).size).toBe(2_500);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(2_500);
    const oldest = JSON.parse((await h.redis.lindex(`${h.prefix}queue:default`, -1))!);
    expect(oldest.jid).toBe(jids[0]);
  });

  it("rejects an unknown job name with a clear error and writes nothing", async () => {
    const tq = h.make(jobs);
    const err = await tq
      .enqueueBulk([
        { name: "sendEmail", args: ["ok"] },
        { name: "nope" as "sendEmail", args: ["x"] },
      ])
      .catch((e) => e);
    expect(err).toBeInstanceOf(TickqError);
    expect(err.code).toBe("UNKNOWN_JOB");
    expect(err.message).toMatch(/Unknown job "nope".*registered: sendEmail, report/);
    expect(await h.redis.exists(`${h.prefix}queue:default`)).toBe(0);
  });

  it("rejects args that are not an array, or not JSON", async () => {
    const tq = h.make(jobs);
    await expect(tq.enqueue("sendEmail", "a@b.c" as unknown as [string])).rejects.toThrow(
      /args must be an array, got string/,
    );
    await expect(tq.enqueue("sendEmail", [10n as unknown as string])).rejects.toThrow(/args\[0\]: a BigInt/);
    await expect(tq.enqueue("sendEmail", ["x"], { at: new Date("nope") })).rejects.toThrow(/invalid Date/);
    expect(await h.redis.exists(`${h.prefix}queue:default`)).toBe(0);
  });
});
