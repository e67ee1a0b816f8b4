// tq.enqueueAndWait: the value of a job run by any tick, its error, or a
// timeout while the job goes on; readable with keepCompleted 0.
import { describe, expect, it } from "vitest";
import { JobFailedError, TickqError, WaitTimeoutError } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("enqueueAndWait over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "results-await");

  it("returns the handler's value, from the tick its enqueue kicked", async () => {
    const tq = h.make({ resize: async ([w]: [number]) => ({ width: w / 2 }) });
    const value: { width: number } = await tq.enqueueAndWait("resize", [1280], { timeoutMs: 10_000 });
    expect(value).toEqual({ width: 640 });
    // Awaited, with keepCompleted 0: no history, the outcome under result:JID only.
    expect(await h.redis.exists(`${h.prefix}succeeded`)).toBe(0);
    expect(await h.redis.keys(`${h.prefix}result:*`)).toHaveLength(1);
  });

  it("returns the value of a job run by a tick of another tickq instance", async () => {
    const jobs = { add: ([a, b]: [number, number]) => a + b };
    const waiter = h.make(jobs);
    const worker = h.make(jobs);
    const waiting = waiter.enqueueAndWait("add", [2, 3], { timeoutMs: 10_000, kick: false });
    let ran = 0;
    while (ran === 0) ran = (await worker.tick()).succeeded;
    expect(await waiting).toBe(5);
  });

  it("throws the job's error when it ends dead", async () => {
    const tq = h.make({
      fail: {
        perform: () => {
          throw new RangeError("too wide");
        },
        retry: false,
      },
    });
    const error = await tq.enqueueAndWait("fail", [], { timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailedError);
    expect(error).toBeInstanceOf(TickqError);
    expect(error).toMatchObject({
      code: "JOB_FAILED",
      state: "dead",
      error: { class: "RangeError", message: "too wide" },
    });
    expect(await h.redis.zcard(`${h.prefix}dead`)).toBe(1);
  });

  it("throws the job's error when it ends failed (discarded with dead: false)", async () => {
    const tq = h.make({
      fail: {
        perform: () => {
          throw new Error("gone");
        },
        retry: false,
      },
    });
    const jid = "discarded-1";
    const waiting = tq.enqueueAndWait("fail", [], { timeoutMs: 10_000, jid, kick: false }).catch((e: unknown) => e);
    // dead: false is Sidekiq's job option: set on the stored job as a Sidekiq client would.
    const key = `${h.prefix}queue:default`;
    while ((await h.redis.llen(key)) === 0) await new Promise((r) => setTimeout(r, 5));
    const [text] = await h.redis.lrange(key, 0, -1);
    await h.redis.lset(key, 0, text!.replace('"retry":false', '"retry":false,"dead":false'));
    await tq.tick();
    expect(await waiting).toMatchObject({
      code: "JOB_FAILED",
      state: "failed",
      error: { class: "Error", message: "gone" },
    });
    expect(await tq.jobs.result(jid)).toEqual({ state: "failed", error: { class: "Error", message: "gone" } });
  });

  it("times out while the job goes on, and the result is read once it ran", async () => {
    const tq = h.make({ later: () => "done" });
    const error = await tq.enqueueAndWait("later", [], { timeoutMs: 150, kick: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    const jid = (error as WaitTimeoutError).jid;
    expect(await tq.jobs.result(jid)).toEqual({ state: "queued" });
    await tq.tick();
    expect(await tq.jobs.result(jid)).toMatchObject({ state: "succeeded", value: "done" });
  });

  it("waits through retries for the job's last outcome", async () => {
    let runs = 0;
    const tq = h.make({
      flaky: {
        perform: () => {
          if (++runs === 1) throw new Error("once");
          return runs;
        },
        backoff: () => 0,
      },
    });
    const waiting = tq.enqueueAndWait("flaky", [], { timeoutMs: 10_000, kick: false });
    let ended = false;
    void waiting.finally(() => (ended = true)).catch(() => {});
    // The enqueue races the first tick (over HTTP it may land after that tick's fetch): tick until the wait ends.
    for (let i = 0; i < 20 && !ended; i++) await tq.tick();
    expect(await waiting).toBe(2);
    expect(runs).toBe(2);
  });

  it("refuses a timeoutMs that is not a positive number, before enqueueing", async () => {
    const tq = h.make({ x: () => 1 });
    await expect(tq.enqueueAndWait("x", [], { timeoutMs: -1 })).rejects.toMatchObject({ code: "BAD_ARGS" });
    expect(await h.redis.exists(`${h.prefix}queue:default`)).toBe(0);
  });
});
