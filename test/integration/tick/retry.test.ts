import { describe, expect, it } from "vitest";
import { defaultBackoff } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe("defaultBackoff", () => {
  it("is Sidekiq's count**4 + 15 + rand(10 * (count + 1))", () => {
    for (const count of [0, 1, 5, 24]) {
      for (let i = 0; i < 200; i++) {
        const delay = defaultBackoff(count);
        expect(delay).toBeGreaterThanOrEqual(count ** 4 + 15);
        expect(delay).toBeLessThan(count ** 4 + 15 + 10 * (count + 1));
        expect(Number.isInteger(delay)).toBe(true);
      }
    }
  });
});

describe.each(adapterCases)("retries over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "retry");
  class PaymentDeclined extends Error {
    override name = "PaymentDeclined";
  }

  it("puts a failed job in `retry` with Sidekiq's fields and backoff", async () => {
    const tq = h.make({
      charge: () => {
        throw new PaymentDeclined("card declined");
      },
    });
    const jid = await tq.enqueue("charge", [42]);
    const [now] = await h.redis.time();
    const report = await tq.tick();
    expect(report).toMatchObject({ failed: 1, retried: 1, dead: 0 });
    const [raw, score] = await h.redis.zrange(`${h.prefix}retry`, "0", "-1", "WITHSCORES");
    const job = JSON.parse(raw!);
    expect(job).toMatchObject({
      jid,
      class: "charge",
      args: [42],
      error_class: "PaymentDeclined",
      error_message: "card declined",
      retry_count: 0,
    });
    expect(job.failed_at).toBeGreaterThanOrEqual(Number(now));
    expect(job.retried_at).toBeUndefined();
    const delay = Number(score) - Number(now);
    expect(delay).toBeGreaterThanOrEqual(15 - 1);
    expect(delay).toBeLessThanOrEqual(25 + 1);
  });

  it("retries when due, counting attempts, then sends the job to the dead set", async () => {
    const attempts: number[] = [];
    const tq = h.make({
      flaky: {
        perform: (_a: [], ctx) => {
          attempts.push(ctx.attempt);
          throw new Error(`fail ${ctx.attempt}`);
        },
        retry: 2,
        backoff: () => 0,
      },
    });
    await tq.enqueue("flaky", []);
    await tq.tick(); // first run
    await tq.tick(); // retry 1 (due at once with backoff 0)
    const last = await tq.tick(); // retry 2: out of retries
    expect(attempts).toEqual([1, 2, 3]);
    expect(last).toMatchObject({ failed: 1, dead: 1, retried: 0, scheduled: 1 });
    const [raw] = await h.redis.zrange(`${h.prefix}dead`, "0", "-1");
    const job = JSON.parse(raw!);
    expect(job).toMatchObject({ retry_count: 2, error_message: "fail 3", retry: 2 });
    expect(job.retried_at).toBeGreaterThanOrEqual(job.failed_at);
    expect(await h.redis.zcard(`${h.prefix}retry`)).toBe(0);
  });

  it("sends a `retry: false` job straight to the dead set, never discards it", async () => {
    const tq = h.make({
      once: {
        perform: () => {
          throw new Error("nope");
        },
        retry: false,
      },
    });
    await tq.enqueue("once", ["payload"]);
    const report = await tq.tick();
    expect(report).toMatchObject({ failed: 1, dead: 1, retried: 0 });
    const [raw] = await h.redis.zrange(`${h.prefix}dead`, "0", "-1");
    expect(JSON.parse(raw!)).toMatchObject({ args: ["payload"], error_message: "nope" });
  });

  it("passes the retry count and error to a custom backoff", async () => {
    const calls: [number, string][] = [];
    const tq = h.make({
      custom: {
        perform: () => {
          throw new Error("x");
        },
        backoff: (count, err) => (calls.push([count, (err as Error).message]), 3_600),
      },
    });
    await tq.enqueue("custom", []);
    const [now] = await h.redis.time();
    await tq.tick();
    const [, score] = await h.redis.zrange(`${h.prefix}retry`, "0", "-1", "WITHSCORES");
    expect(calls).toEqual([[0, "x"]]);
    expect(Number(score) - Number(now)).toBeGreaterThanOrEqual(3_599);
  });

  it("keeps a non-Error throw readable", async () => {
    const tq = h.make({
      odd: () => {
        throw "plain string";
      },
    });
    await tq.enqueue("odd", []);
    await tq.tick();
    const [raw] = await h.redis.zrange(`${h.prefix}retry`, "0", "-1");
    expect(JSON.parse(raw!)).toMatchObject({ error_message: "plain string", error_class: "string" });
  });
});
