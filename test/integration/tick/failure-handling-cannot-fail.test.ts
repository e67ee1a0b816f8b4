// Failure handling cannot fail: whatever a backoff, a handler or
// a middleware throws (non-Errors, throwing getters, unprintable values),
// only that job fails, with the default backoff and a readable reason; the
// other jobs of the same tick run exactly once and are counted once.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

type Entry = { job: Record<string, unknown>; score: number };

describe.each(adapterCases)("failure handling over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "failure-handling");

  async function retrySet(): Promise<Entry[]> {
    const flat = await h.redis.zrange(`${h.prefix}retry`, "0", "-1", "WITHSCORES");
    const out: Entry[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ job: JSON.parse(flat[i]!), score: Number(flat[i + 1]) });
    return out;
  }

  // Redis' clock in seconds: a retry is due its backoff after the failure, which falls between two readings.
  async function redisSeconds(): Promise<number> {
    const [seconds, micros] = await h.redis.time();
    return Number(seconds) + Number(micros) / 1e6;
  }

  it("a backoff that throws sends its job to retry with Sidekiq's backoff and the handler's error; the batch's other jobs run once", async () => {
    const runs = new Map<number, number>();
    const backoffCalls: number[] = [];
    const tq = h.make({
      good: (args: [number]) => void runs.set(args[0], (runs.get(args[0]) ?? 0) + 1),
      bad: {
        perform: () => {
          throw new TypeError("handler broke");
        },
        backoff: (count: number) => {
          backoffCalls.push(count);
          throw new Error("backoff broke");
        },
      },
    });
    await tq.enqueueBulk([
      ...Array.from({ length: 4 }, (_, i) => ({ name: "good" as const, args: [i] as [number] })),
      { name: "bad" as const, args: [] },
      ...Array.from({ length: 4 }, (_, i) => ({ name: "good" as const, args: [4 + i] as [number] })),
    ]);
    const before = await redisSeconds();
    const report = await tq.tick({ batch: 20 });
    const after = await redisSeconds();
    expect(report).toMatchObject({ fetched: 9, succeeded: 8, failed: 1, retried: 1, dead: 0, requeued: 0 });
    expect(backoffCalls).toEqual([0]);

    const [entry, ...others] = await retrySet();
    expect(others).toEqual([]);
    expect(entry!.job).toMatchObject({
      class: "bad",
      error_class: "TypeError",
      error_message: "handler broke",
      retry_count: 0,
    });
    // Sidekiq's backoff for a first retry: 15 s and up to 9 more, from the failure (the score keeps milliseconds).
    expect(entry!.score - before).toBeGreaterThanOrEqual(15 - 0.001);
    expect(entry!.score - after).toBeLessThanOrEqual(24 + 0.001);

    // Two more ticks: nothing of the batch runs again (no re-delivery, no poison).
    await tq.tick();
    await tq.tick();
    expect([...runs.entries()].sort((a, b) => a[0] - b[0])).toEqual(Array.from({ length: 8 }, (_, i) => [i, 1]));
    expect(await tq.stats()).toMatchObject({
      processed: 9,
      failed: 1,
      retry: 1,
      dead: 0,
      inflight: 0,
      queues: { default: 0 },
    });
  });

  it("a backoff returning nonsense (NaN, negative, a string) falls back to Sidekiq's", async () => {
    const values: unknown[] = [Number.NaN, -5, "10", Infinity];
    const tq = h.make(
      Object.fromEntries(
        values.map((v, i) => [
          `b${i}`,
          {
            perform: () => {
              throw new Error(`e${i}`);
            },
            backoff: () => v as number,
          },
        ]),
      ),
    );
    await tq.enqueueBulk(values.map((_, i) => ({ name: `b${i}`, args: [] })));
    const before = await redisSeconds();
    expect(await tq.tick()).toMatchObject({ failed: 4, retried: 4, dead: 0 });
    const after = await redisSeconds();
    const entries = await retrySet();
    expect(entries).toHaveLength(4);
    for (const { score } of entries) {
      expect(score - before).toBeGreaterThanOrEqual(15 - 0.001);
      expect(score - after).toBeLessThanOrEqual(24 + 0.001);
    }
  });

  it("unprintable throws fail only their own job, each with a readable error_class and error_message", async () => {
    const unprintable = {
      toString() {
        throw new Error("x");
      },
      valueOf() {
        throw new Error("y");
      },
    };
    const badMessage = new Error("hidden");
    Object.defineProperty(badMessage, "message", {
      get() {
        throw new Error("message getter");
      },
    });
    const badName = new RangeError("named badly");
    Object.defineProperty(badName, "name", {
      get() {
        throw new Error("name getter");
      },
    });
    const trap = () => {
      throw new Error("trap");
    };
    const hostile = new Proxy(
      {},
      { get: trap, getPrototypeOf: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap },
    );
    const ran: number[] = [];
    const tq = h.make({
      good: (args: [number]) => void ran.push(args[0]),
      unprintable: () => {
        throw unprintable;
      },
      nullish: () => {
        throw null;
      },
      undef: async () => {
        throw undefined;
      },
      badMessage: () => {
        throw badMessage;
      },
      badName: () => {
        throw badName;
      },
      hostile: async () => {
        throw hostile;
      },
    });
    const bad = ["unprintable", "nullish", "undef", "badMessage", "badName", "hostile"] as const;
    await tq.enqueueBulk([
      { name: "good", args: [1] },
      ...bad.map((name) => ({ name, args: [name] })),
      { name: "good", args: [2] },
    ]);
    const report = await tq.tick({ batch: 20, concurrency: 3 });
    expect(report).toMatchObject({ fetched: 8, succeeded: 2, failed: 6, retried: 6, dead: 0 });
    expect(ran.sort()).toEqual([1, 2]);

    const byName = Object.fromEntries((await retrySet()).map(({ job }) => [job.class as string, job]));
    expect(Object.keys(byName).sort()).toEqual([...bad].sort());
    for (const job of Object.values(byName)) {
      expect(typeof job.error_class).toBe("string");
      expect(job.error_class).not.toBe("");
      expect(typeof job.error_message).toBe("string");
      expect(job.retry_count).toBe(0);
    }
    // Its JSON, which leaves out the throwing toString and valueOf (functions): String() is never called.
    expect(byName.unprintable).toMatchObject({ error_class: "object", error_message: "{}" });
    expect(byName.nullish).toMatchObject({ error_class: "null", error_message: "null" });
    expect(byName.undef).toMatchObject({ error_class: "undefined", error_message: "undefined" });
    expect(byName.badMessage).toMatchObject({ error_class: "Error" });
    expect(byName.badMessage!.error_message).toMatch(/unreadable/);
    expect(byName.badName).toMatchObject({ error_message: "named badly" });
    expect(byName.hostile!.error_message).toMatch(/cannot be printed/);
    expect(await tq.stats()).toMatchObject({ processed: 8, failed: 6, retry: 6, inflight: 0, queues: { default: 0 } });
  });

  it("a middleware that throws a non-Error fails only the jobs it threw for", async () => {
    const ran: string[] = [];
    const tq = h.make({ work: (args: [string]) => void ran.push(args[0]) });
    tq.use(async (job, _ctx, next) => {
      if (job.args[0] === "num") throw 42;
      if (job.args[0] === "obj")
        throw {
          toString: () => {
            throw new Error("no");
          },
        };
      if (job.args[0] === "str") throw "refused by middleware";
      return next();
    });
    await tq.enqueueBulk(["a", "num", "b", "obj", "str", "c"].map((arg) => ({ name: "work" as const, args: [arg] })));
    const report = await tq.tick({ batch: 10 });
    expect(report).toMatchObject({ fetched: 6, succeeded: 3, failed: 3, retried: 3, dead: 0 });
    expect(ran.sort()).toEqual(["a", "b", "c"]);
    const byArg = Object.fromEntries((await retrySet()).map(({ job }) => [(job.args as string[])[0]!, job]));
    expect(byArg.num).toMatchObject({ error_class: "number", error_message: "42" });
    expect(byArg.str).toMatchObject({ error_class: "string", error_message: "refused by middleware" });
    expect(byArg.obj).toMatchObject({ error_class: "object", error_message: "{}" });
    expect(await tq.stats()).toMatchObject({ processed: 6, failed: 3 });
  });

  it("an unprintable throw from a `retry: false` job goes dead whole, never lost", async () => {
    const tq = h.make({
      once: {
        perform: () => {
          throw {
            toString() {
              throw new Error("x");
            },
          };
        },
        retry: false,
        backoff: () => {
          throw new Error("unused");
        },
      },
      good: () => {},
    });
    await tq.enqueueBulk([
      { name: "once", args: [{ keep: [] }] },
      { name: "good", args: [] },
    ]);
    expect(await tq.tick()).toMatchObject({ succeeded: 1, failed: 1, dead: 1, retried: 0 });
    const [raw] = await h.redis.zrange(`${h.prefix}dead`, "0", "-1");
    expect(raw).toContain('"args":[{"keep":[]}]');
    expect(JSON.parse(raw!)).toMatchObject({ class: "once", error_class: "object" });
  });
});
