// A job whose bytes are not valid UTF-8 (a foreign client's push: Sidekiq from Ruby, redis-cli) is read
// by every adapter with U+FFFD in place of the bad bytes, so the text the jobs API found named nothing in
// Redis: retry, delete, run now and cancel by jid answered "it kept moving while ticks ran", and bulk
// moves skipped it. They now name it by its text as read where it was seen, and act on its stored
// bytes: removed exactly, or pushed with the fields a retry sets spliced in beside the bad bytes.
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { TickqError } from "../../../src/index.js";
import type { JobContext } from "../../../src/job/context.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

/** A Sidekiq-shaped job whose one argument holds `bad` (hex) between ASCII. */
function jobBytes(jid: string, bad = "ff", extra = ""): Buffer {
  return Buffer.concat([
    Buffer.from(`{"class":"x","args":["a`),
    Buffer.from(bad, "hex"),
    Buffer.from(`"],"jid":"${jid}","queue":"default","retry":3${extra}}`),
  ]);
}
/** A plain job of the same shape. */
const plain = (jid: string) => Buffer.from(`{"class":"x","args":["a"],"jid":"${jid}","queue":"default","retry":3}`);

/** A score as Sidekiq writes one (Ruby's Time#to_f): microseconds, which a score rounded to ms would miss. */
const SCORE = "1900000000.123456";

const zadd = (redis: Redis, key: string, ...members: Buffer[]) =>
  redis.zadd(key, ...members.flatMap((m) => [SCORE, m] as [string, Buffer]));

describe.each(adapterCases)("the jobs API on a job with invalid UTF-8 over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "admin-bad-utf8");
  const queue = () => h.redis.lrangeBuffer(`${h.prefix}queue:default`, "0", "-1");
  const members = (set: string) => h.redis.zrangeBuffer(`${h.prefix}${set}`, "0", "-1");
  /** What a push keeps: every stored byte up to where the move splices `field`. */
  const upTo = (job: Buffer, field: string) => job.subarray(0, job.indexOf(field));

  it("retry of a dead job pushes its stored bytes, retry_count one lower and enqueued_at spliced in", async () => {
    const tq = h.make({ x: () => {} });
    const stored = jobBytes("d1", "eda080", ',"retry_count":4,"error_message":"boom"');
    // A plain job at the same score: the scan takes the one the name is for.
    await zadd(h.redis, `${h.prefix}dead`, plain("other"), stored);
    expect(await tq.jobs.retry("d1")).toMatchObject({ state: "queued", jid: "d1" });
    expect(await members("dead")).toEqual([plain("other")]);
    const [pushed] = await queue();
    expect(upTo(pushed!, '"retry_count"')).toEqual(upTo(stored, '"retry_count"'));
    expect(pushed!.includes(Buffer.from(',"retry_count":3,"error_message":"boom","enqueued_at":'))).toBe(true);
    expect(await h.redis.sismember(`${h.prefix}queues`, "default")).toBe(1);
  });

  it("retry of a retry job and run now of a scheduled one move them once; their sets keep the others", async () => {
    const tq = h.make({ x: () => {} });
    const retrying = jobBytes("r1", "c080", ',"retry_count":1');
    const scheduled = jobBytes("s1", "f09f98");
    await zadd(h.redis, `${h.prefix}retry`, retrying, plain("r2"));
    await zadd(h.redis, `${h.prefix}schedule`, scheduled, plain("s2"));
    await tq.jobs.retry("r1");
    await tq.jobs.runNow("s1");
    expect(await members("retry")).toEqual([plain("r2")]);
    expect(await members("schedule")).toEqual([plain("s2")]);
    const pushed = await queue();
    expect(pushed).toHaveLength(2);
    expect(upTo(pushed[1]!, '"retry_count"')).toEqual(upTo(retrying, '"retry_count"'));
    expect(pushed[1]!.includes(Buffer.from('"retry_count":0,"enqueued_at":'))).toBe(true);
    expect(upTo(pushed[0]!, ',"enqueued_at"')).toEqual(scheduled.subarray(0, -1));
  });

  it("delete takes out exactly its stored bytes, from a queue and a sorted set", async () => {
    const tq = h.make({ x: () => {} });
    const queued = jobBytes("q1", "ff");
    await h.redis.lpush(`${h.prefix}queue:default`, plain("a"), queued, plain("b"));
    await h.redis.sadd(`${h.prefix}queues`, "default");
    const dead = jobBytes("d1", "80");
    await zadd(h.redis, `${h.prefix}dead`, dead, plain("d2"));
    expect(await tq.jobs.delete("q1")).toMatchObject({ state: "queued", jid: "q1" });
    expect(await tq.jobs.delete("d1")).toMatchObject({ state: "dead", jid: "d1" });
    expect(await queue()).toEqual([plain("b"), plain("a")]);
    expect(await members("dead")).toEqual([plain("d2")]);
  });

  it("cancel takes it out of a queue, the schedule or the retry set and records it cancelled, its bytes kept", async () => {
    const tq = h.make({ x: () => {} });
    const queued = jobBytes("q1", "fe");
    const scheduled = jobBytes("s1", "f4908080");
    const retrying = jobBytes("r1", "e282");
    await h.redis.lpush(`${h.prefix}queue:default`, queued, plain("a"));
    await h.redis.sadd(`${h.prefix}queues`, "default");
    await zadd(h.redis, `${h.prefix}schedule`, scheduled);
    await zadd(h.redis, `${h.prefix}retry`, retrying);
    expect(await tq.jobs.cancel("q1")).toEqual({ jid: "q1", state: "cancelled", from: "queued" });
    expect(await tq.jobs.cancel("s1")).toEqual({ jid: "s1", state: "cancelled", from: "scheduled" });
    expect(await tq.jobs.cancel("r1")).toEqual({ jid: "r1", state: "cancelled", from: "retry" });
    expect(await queue()).toEqual([plain("a")]);
    expect(await members("schedule")).toEqual([]);
    expect(await members("retry")).toEqual([]);
    const recorded = await members("cancelled");
    expect(recorded).toHaveLength(3);
    // The record is the stored job with tickq_cancelled_from set first: every byte after its "{" kept.
    for (const stored of [queued, scheduled, retrying])
      expect(recorded.some((entry) => entry.includes(stored.subarray(1)))).toBe(true);
    expect((await tq.jobs.find("s1"))?.state).toBe("cancelled");
  });

  it("cancel of it while it runs aborts its handler, and it ends cancelled with its bytes kept", async () => {
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const tq = h.make({
      x: (_args: [], ctx: JobContext) =>
        new Promise((_, reject) => {
          started();
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
        }),
    });
    const stored = jobBytes("run1", "f09f98");
    await h.redis.lpush(`${h.prefix}queue:default`, stored);
    await h.redis.sadd(`${h.prefix}queues`, "default");
    const ticking = tq.tick({ budgetMs: 8_000, cancelCheckMs: 300 });
    await running;
    const cancelled = await tq.jobs.cancel("run1");
    expect(cancelled).toMatchObject({ jid: "run1", from: "running" });
    expect(["cancelling", "cancelled"]).toContain(cancelled.state);
    expect(await ticking).toMatchObject({ fetched: 1 });
    expect(await h.redis.keys(`${h.prefix}inproc:*`)).toEqual([]);
    const [recorded] = await members("cancelled");
    expect(recorded!.includes(stored.subarray(1))).toBe(true);
  });

  it("retryAll and a filtered deleteAll move it with the others", async () => {
    const tq = h.make({ x: () => {}, y: () => {} });
    const dead = jobBytes("d1", "ff", ',"retry_count":2');
    await zadd(h.redis, `${h.prefix}dead`, dead, plain("d2"));
    expect(await tq.jobs.retryAll("dead")).toBe(2);
    expect(await members("dead")).toEqual([]);
    const pushed = await queue();
    expect(
      pushed.some((job) => job.subarray(0, dead.indexOf('"retry_count"')).equals(upTo(dead, '"retry_count"'))),
    ).toBe(true);
    await zadd(h.redis, `${h.prefix}retry`, jobBytes("r1", "c0"), plain("r2"));
    expect(await tq.jobs.deleteAll("retry", { name: "x" })).toBe(2);
    expect(await members("retry")).toEqual([]);
  });

  it("one in a priority set is named by its text: a real U+FFFD is deleted, bad bytes are refused saying why", async () => {
    const tq = h.make({ x: () => {} });
    const real = Buffer.from(`{"class":"x","args":["a\uFFFD"],"jid":"p0","queue":"default","tickq_priority":5}`);
    const stored = jobBytes("p1", "ff", ',"tickq_priority":5');
    await h.redis.zadd(`${h.prefix}prio:default`, "-2", real, "-1", stored);
    await h.redis.sadd(`${h.prefix}queues`, "default");
    expect(await tq.jobs.delete("p0")).toMatchObject({ jid: "p0", state: "queued" });
    const refused = await tq.jobs.delete("p1").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TickqError);
    expect((refused as TickqError).message).toMatch(/not valid UTF-8/);
    expect(await h.redis.zrangeBuffer(`${h.prefix}prio:default`, "0", "-1")).toEqual([stored]);
  });
});
