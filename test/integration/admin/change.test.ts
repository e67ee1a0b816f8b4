import { describe, expect, it } from "vitest";
import { TickqError } from "../../../src/errors.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const boom = () => {
  throw new Error("boom");
};

describe.each(adapterCases)("retry, run now and delete over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "change");

  it("retries a dead job, which the next tick runs, keeping its bytes but one lower retry_count", async () => {
    let fail = true;
    const ran: number[] = [];
    const tq = h.make({
      charge: {
        retry: 1,
        backoff: () => 0,
        perform: ([n]: [number], ctx) => {
          ran.push(ctx.attempt);
          if (fail) throw new Error(`declined ${n}`);
        },
      },
    });
    const jid = await tq.enqueue("charge", [7]);
    await tq.tick();
    await tq.tick(); // the retry, out of retries: dead
    const dead = await tq.jobs.find(jid);
    expect(dead).toMatchObject({ state: "dead", job: { retry_count: 1 } });
    fail = false;
    const retried = await tq.jobs.retry(jid);
    expect(retried).toMatchObject({ state: "queued", queue: "default", jid, job: { retry_count: 0 } });
    expect(retried.raw).toBe(dead!.raw.replace('"retry_count":1', '"retry_count":0'));
    expect(await h.redis.zcard(`${h.prefix}dead`)).toBe(0);
    expect(await tq.tick()).toMatchObject({ succeeded: 1 });
    expect(ran).toEqual([1, 2, 2]);
    expect(await tq.jobs.find(jid)).toBeNull();
  });

  it("runs a scheduled or retry job now, unchanged, and refuses a dead one", async () => {
    const tq = h.make({ later: () => {}, fail: { perform: boom, retry: false } });
    const jid = await tq.enqueue("later", [], { delayMs: 3_600_000 });
    const before = (await tq.jobs.find(jid))!;
    const now = await tq.jobs.runNow(jid);
    expect(now).toMatchObject({ state: "queued", queue: "default" });
    expect(now.raw).toBe(before.raw);
    expect(await tq.tick()).toMatchObject({ succeeded: 1 });
    const dead = await tq.enqueue("fail", []);
    await tq.tick();
    await expect(tq.jobs.runNow(dead)).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/dead/),
    });
  });

  it("deletes a job in any waiting state, and says NOT_FOUND after", async () => {
    const tq = h.make({ ok: () => {}, fail: { perform: boom, retry: false } });
    const queued = await tq.enqueue("ok", [], { queue: "other" });
    const scheduled = await tq.enqueue("ok", [], { delayMs: 60_000 });
    const dead = await tq.enqueue("fail", []);
    await tq.tick();
    for (const [jid, state] of [
      [queued, "queued"],
      [scheduled, "scheduled"],
      [dead, "dead"],
    ] as const) {
      expect(await tq.jobs.delete(jid)).toMatchObject({ jid, state });
      expect(await tq.jobs.find(jid)).toBeNull();
      const error = await tq.jobs.delete(jid).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TickqError);
      expect(error).toMatchObject({ code: "NOT_FOUND" });
    }
    expect(await tq.stats()).toMatchObject({ queues: { other: 0 }, scheduled: 0, dead: 0 });
  });

  it("deletes a queued job deep in a long queue", async () => {
    const tq = h.make({ ok: () => {} });
    const jids = await tq.enqueueBulk(Array.from({ length: 3_000 }, (_, i) => ({ name: "ok" as const, args: [i] })));
    await tq.jobs.delete(jids[1_234]!);
    await tq.jobs.delete(jids[2_999]!);
    const left = (await h.redis.lrange(`${h.prefix}queue:default`, 0, -1)).map((j) => JSON.parse(j).args[0]);
    expect(left).toHaveLength(2_998);
    expect(left).not.toContain(1_234);
    expect(left).not.toContain(2_999);
  });

  it("refuses a job in process with CONFLICT, and retry of a queued job", async () => {
    const errors: unknown[] = [];
    const tq = h.make({
      look: async (_args: [], ctx) => {
        errors.push(await tq.jobs.delete(ctx.jid).catch((e: unknown) => e));
        errors.push(await tq.jobs.retry(ctx.jid).catch((e: unknown) => e));
      },
    });
    await tq.enqueue("look", []);
    expect(await tq.tick()).toMatchObject({ succeeded: 1 });
    expect(errors).toHaveLength(2);
    for (const e of errors)
      expect(e).toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/in process in tick/) });
    const queued = await tq.enqueue("look", []);
    await expect(tq.jobs.retry(queued)).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/queued/),
    });
  });

  it("retries all dead jobs of a name, and deletes all retry jobs, in stretches", async () => {
    const tq = h.make({
      a: { perform: boom, retry: false },
      b: { perform: boom, retry: false },
      c: { perform: boom, backoff: () => 3_600 },
    });
    await tq.enqueueBulk([
      ...Array.from({ length: 1_200 }, () => ({ name: "a" as const, args: [] })),
      ...Array.from({ length: 30 }, () => ({ name: "b" as const, args: [] })),
      ...Array.from({ length: 20 }, () => ({ name: "c" as const, args: [] })),
    ]);
    // Until the queue is empty: on a loaded machine one tick's budget can end before 1,250 jobs.
    while ((await tq.tick({ batch: 500, concurrency: 100 })).more);
    expect(await tq.stats()).toMatchObject({ dead: 1_230, retry: 20 });
    expect(await tq.jobs.retryAll("dead", { name: "a" })).toBe(1_200);
    expect(await tq.stats()).toMatchObject({ dead: 30, queues: { default: 1_200 } });
    expect(await tq.jobs.deleteAll("retry")).toBe(20);
    expect(await tq.jobs.deleteAll("dead", { name: "b" })).toBe(30);
    expect(await tq.jobs.deleteAll("queued", { queue: "default", name: "a" })).toBe(1_200);
    expect(await tq.stats()).toMatchObject({ dead: 0, retry: 0, queues: { default: 0 } });
    await expect(tq.jobs.deleteAll("queued")).rejects.toMatchObject({ code: "BAD_ARGS" });
    await expect(tq.jobs.deleteAll("running" as "dead")).rejects.toMatchObject({ code: "BAD_STATE" });
  });

  it("refuses a bad jid", async () => {
    const tq = h.make({});
    await expect(tq.jobs.find("has space")).rejects.toMatchObject({ code: "BAD_ARGS" });
    await expect(tq.jobs.delete("")).rejects.toMatchObject({ code: "BAD_ARGS" });
  });
});
