import { describe, expect, it } from "vitest";
import { createTickq, TickqError } from "../../../src/index.js";
import { adapterCases, openCuttable, openUnreachable } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("bad input over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "bad-input");

  it("sends malformed entries to the dead set with their raw text and reason, unknown names to retry; the tick goes on", async () => {
    const ran: unknown[] = [];
    const tq = h.make({ good: (args: unknown[]) => void ran.push(args) });
    const queue = `${h.prefix}queue:default`;
    await h.redis.lpush(queue, "{not json");
    await h.redis.lpush(queue, '"a string"');
    await h.redis.lpush(queue, JSON.stringify({ args: [1] }));
    await h.redis.lpush(queue, JSON.stringify({ class: "good", args: "nope" }));
    await h.redis.lpush(queue, JSON.stringify({ class: "Missing", args: [2], jid: "abc" }));
    await tq.enqueue("good", ["fine"]);
    const report = await tq.tick();
    expect(report).toMatchObject({ fetched: 6, succeeded: 1, dead: 4, failed: 1, retried: 1 });
    expect(ran).toEqual([["fine"]]);

    const dead = (await h.redis.zrange(`${h.prefix}dead`, "0", "-1")).map((d) => JSON.parse(d));
    const byReason = Object.fromEntries(dead.map((d) => [d.error_message, d]));
    expect(byReason["job is not valid JSON"]).toMatchObject({ raw: "{not json", error_class: "TickqMalformedJob" });
    expect(byReason["job is not a JSON object"]).toMatchObject({ raw: '"a string"' });
    expect(byReason['job has no "class" (the job name)']).toMatchObject({ args: [1] });
    expect(byReason['job "args" is not an array']).toMatchObject({ class: "good", args: "nope" });
    // A name this code does not know (a rolling deploy) is retried with Sidekiq's backoff, as Sidekiq retries an unknown class.
    const [retried, score] = await h.redis.zrange(`${h.prefix}retry`, "0", "-1", "WITHSCORES");
    expect(JSON.parse(retried!)).toMatchObject({
      class: "Missing",
      args: [2],
      jid: "abc",
      error_class: "TickqUnknownJob",
      retry_count: 0,
    });
    expect(JSON.parse(retried!).error_message).toMatch(/no job named "Missing" is registered/);
    const [now] = await h.redis.time();
    expect(Number(score) - Number(now)).toBeGreaterThanOrEqual(14);
    expect(await tq.stats()).toMatchObject({ inflight: 0, queues: { default: 0 } });
  });

  it("a malformed job in the schedule reaches the dead set with the reason, never another queue", async () => {
    const tq = h.make({ good: () => {} });
    await h.redis.zadd(`${h.prefix}schedule`, 1, "garbage");
    await h.redis.zadd(`${h.prefix}retry`, 1, '{"class":"good","args":[],"queue":""}');
    const report = await tq.tick();
    expect(report).toMatchObject({ scheduled: 2, fetched: 0 });
    const dead = (await h.redis.zrange(`${h.prefix}dead`, "0", "-1")).map((d) => JSON.parse(d));
    expect(dead.map((d) => d.raw).sort()).toEqual(["garbage", '{"class":"good","args":[],"queue":""}']);
    expect(dead.map((d) => d.error_message).sort()).toEqual([
      "job is not a JSON object",
      "job queue name is empty or holds whitespace",
    ]);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(0);
  });
});

describe.each(adapterCases)("Redis unreachable over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "unreachable");

  it("tick and enqueue reject with a clear error", async () => {
    const { adapter, close } = openUnreachable(adapterCase.name);
    const tq = createTickq({ redis: adapter, prefix: h.prefix, jobs: { x: () => {} }, redisTimeoutMs: 3_000 });
    for (const call of [() => tq.tick(), () => tq.enqueue("x", [])]) {
      const err = await call().catch((e) => e);
      expect(err).toBeInstanceOf(TickqError);
      expect(err.message).toMatch(/Redis (call failed|did not answer)/);
    }
    await close();
  });

  it("a Redis that dies mid-tick makes the tick reject, and loses nothing", async () => {
    const cuttable = await openCuttable(adapterCase.name);
    const ran = new Map<number, number>();
    const jobs = {
      work: async (args: [number]) => {
        ran.set(args[0], (ran.get(args[0]) ?? 0) + 1);
        if (args[0] === 5) await cuttable.cut();
      },
    };
    const broken = createTickq({ redis: cuttable.adapter, prefix: h.prefix, jobs, redisTimeoutMs: 2_000 });
    await broken.enqueueBulk(Array.from({ length: 30 }, (_, i) => ({ name: "work", args: [i] })));
    const err = await broken.tick({ batch: 10, concurrency: 1, leaseMs: 300 }).catch((e) => e);
    expect(err).toBeInstanceOf(TickqError);
    await cuttable.close();

    await sleep(350);
    const healthy = h.make(jobs);
    const report = await healthy.tick({ batch: 50 });
    expect(report.resurrected).toBe(10);
    expect([...ran.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(await healthy.stats()).toMatchObject({ inflight: 0, ticks: 0, queues: { default: 0 }, dead: 0 });
  });
});
