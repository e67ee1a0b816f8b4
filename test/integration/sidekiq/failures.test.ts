// A failing job's Sidekiq options behave as Sidekiq documents them
// (job_retry.rb): `retry_queue`, `dead: false`, `backtrace`, the 10,000
// character cap on error_message, and retry_count read as Ruby reads it
// (-1, left by a retry from Sidekiq's API, counts as "failed before").
import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const job = (fields: Record<string, unknown>) =>
  JSON.stringify({ class: "boom", args: [1], jid: "j1", queue: "default", retry: true, ...fields });

describe.each(adapterCases)("Sidekiq's failure options over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "sk-failures");
  const boom = (message = "kaboom") => ({
    perform: () => {
      throw new Error(message);
    },
    backoff: () => 0,
  });
  const entries = async (set: "retry" | "dead") =>
    (await h.redis.zrange(`${h.prefix}${set}`, "0", "-1")).map((raw) => JSON.parse(raw));
  const push = (raw: string, queue = "default") => h.redis.lpush(`${h.prefix}queue:${queue}`, raw);

  it("retry_queue: the retry entry names that queue, and the retry runs from it", async () => {
    const tq = h.make({ boom: boom() }, { queues: ["default", "low"] });
    await push(job({ retry_queue: "low" }));
    expect(await tq.tick()).toMatchObject({ failed: 1, retried: 1 });
    expect(await entries("retry")).toMatchObject([{ queue: "low", retry_queue: "low", retry_count: 0 }]);
    await h.make({ boom: () => {} }, { queues: ["elsewhere"] }).tick(); // moves it: to queue:low, not default
    expect(await h.redis.llen(`${h.prefix}queue:low`)).toBe(1);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(0);
  });

  it("retry_queue that is no queue name is ignored: the queue the job ran from", async () => {
    const tq = h.make({ boom: boom() }, { queues: ["mine"] });
    await push(job({ queue: "mine", retry_queue: "not a name" }), "mine");
    await tq.tick();
    expect(await entries("retry")).toMatchObject([{ queue: "mine" }]);
  });

  it("dead: false drops a job once its retries run out, counted as failed, nothing in the dead set", async () => {
    const tq = h.make({ boom: boom() });
    await push(job({ retry: 1, dead: false }));
    await push(job({ jid: "j2", retry: false, dead: false }));
    expect(await tq.tick()).toMatchObject({ failed: 2, retried: 1, discarded: 1, dead: 0 });
    expect(await tq.tick()).toMatchObject({ scheduled: 1, failed: 1, retried: 0, discarded: 1, dead: 0 });
    expect(await tq.stats()).toMatchObject({ processed: 3, failed: 3, retry: 0, dead: 0, inflight: 0 });
  });

  it("backtrace: true keeps every frame, a number the first that many, deflated and base64'd as Sidekiq stores them", async () => {
    // backtraceLines 0: as under Sidekiq's own prefix, a job that asks for none keeps none
    const tq = h.make({ boom: boom() }, { backtraceLines: 0 });
    await push(job({ jid: "all", backtrace: true }));
    await push(job({ jid: "two", backtrace: 2 }));
    await push(job({ jid: "none" }));
    await tq.tick();
    const byJid = Object.fromEntries((await entries("retry")).map((e) => [e.jid, e]));
    const lines = (e: { error_backtrace: string }) =>
      JSON.parse(inflateSync(Buffer.from(e.error_backtrace, "base64")).toString()) as string[];
    expect(lines(byJid.all).length).toBeGreaterThan(2);
    expect(lines(byJid.all)[0]).toMatch(/failures\.test\.ts:\d+:\d+/);
    expect(lines(byJid.two)).toEqual(lines(byJid.all).slice(0, 2));
    expect(byJid.none.error_backtrace).toBeUndefined();
  });

  it("error_message keeps 10,000 characters as Ruby counts them, with lone surrogates replaced", async () => {
    const tq = h.make({
      long: () => {
        throw new Error("😀".repeat(12_000));
      },
      lone: () => {
        throw new Error("a\ud800b");
      },
    });
    await push(JSON.stringify({ class: "long", args: [], jid: "l1", retry: 1 }));
    await push(JSON.stringify({ class: "lone", args: [], jid: "l2", retry: 1 }));
    await tq.tick();
    const byJid = Object.fromEntries((await entries("retry")).map((e) => [e.jid, e]));
    expect(Array.from(byJid.l1.error_message as string)).toHaveLength(10_000);
    expect((byJid.l1.error_message as string).isWellFormed()).toBe(true);
    expect(byJid.l2.error_message).toBe("a\ufffdb");
  });

  it("retry_count -1 (a retry from Sidekiq's API) is a job that failed before: attempt 2, then retry_count 0 with retried_at", async () => {
    const attempts: number[] = [];
    const tq = h.make({
      boom: {
        perform: (_a: unknown[], ctx) => {
          attempts.push(ctx.attempt);
          throw new Error("again");
        },
      },
    });
    await push(job({ retry_count: -1, failed_at: 1000.5, error_message: "first" }));
    await push(job({ jid: "j3", retry_count: 3, failed_at: 1000.5 }));
    await tq.tick();
    expect(attempts.sort()).toEqual([2, 5]);
    const byJid = Object.fromEntries((await entries("retry")).map((e) => [e.jid, e]));
    expect(byJid.j1).toMatchObject({ retry_count: 0, failed_at: 1000.5, error_message: "again" });
    expect(byJid.j1.retried_at).toBeGreaterThan(1000.5);
    expect(byJid.j3).toMatchObject({ retry_count: 4, failed_at: 1000.5 });
  });

  it("a job written without `retry` takes its definition's, as Sidekiq takes the worker's", async () => {
    const tq = h.make({
      boom: boom(),
      once: {
        perform: () => {
          throw new Error("x");
        },
        retry: false,
      },
    });
    await push(JSON.stringify({ class: "boom", args: [], jid: "b1" }));
    await push(JSON.stringify({ class: "once", args: [], jid: "o1" }));
    expect(await tq.tick()).toMatchObject({ failed: 2, retried: 1, dead: 1 });
    expect((await entries("retry")).map((e) => e.jid)).toEqual(["b1"]);
    expect((await entries("dead")).map((e) => e.jid)).toEqual(["o1"]);
  });
});
