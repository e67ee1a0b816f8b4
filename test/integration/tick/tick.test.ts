import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("tick over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "tick");

  it("drains a queue, passing args and context to the handler", async () => {
    const seen: { args: unknown[]; jid: string; queue: string; attempt: number }[] = [];
    const tq = h.make({
      add: async (args: [number, number], ctx) => {
        seen.push({ args, jid: ctx.jid, queue: ctx.queue, attempt: ctx.attempt });
        expect(ctx.signal.aborted).toBe(false);
      },
    });
    const jid = await tq.enqueue("add", [1, 2]);
    const report = await tq.tick();
    expect(seen).toEqual([{ args: [1, 2], jid, queue: "default", attempt: 1 }]);
    expect(report).toMatchObject({ fetched: 1, succeeded: 1, failed: 0, dead: 0, requeued: 0, more: false });
    expect(await tq.stats()).toMatchObject({ processed: 1, failed: 0, inflight: 0, ticks: 0, queues: { default: 0 } });
  });

  it("reports its duration in whole milliseconds", async () => {
    const tq = h.make({ wait: () => new Promise((resolve) => setTimeout(resolve, 3)) });
    await tq.enqueue("wait", []);
    const report = await tq.tick();
    expect(report.durationMs).toBeGreaterThanOrEqual(3);
    expect(Number.isInteger(report.durationMs)).toBe(true);
  });

  it("costs a constant number of round trips per batch, not per job", async () => {
    const tq = h.make({ noop: () => {} });
    await tq.enqueueBulk(Array.from({ length: 1_000 }, () => ({ name: "noop", args: [] })));
    const report = await tq.tick({ batch: 100 });
    expect(report.succeeded).toBe(1_000);
    // begin + 9 steps + finish (the 10th batch is full, so one more empty step/fetch), and up to
    // two acks-only steps: a batch and a round of slots may finish before the next fetch is due
    // when the machine is loaded (pipeline.ts). Per job it would be 1,000.
    expect(report.roundTrips).toBeLessThanOrEqual(14);
    expect(report.roundTrips / report.succeeded).toBeLessThanOrEqual(0.015);
  });

  it("an idle tick costs at most 3 round trips and leaves only its expiring lease behind", async () => {
    const tq = h.make({ noop: () => {} });
    await tq.tick(); // the first call may EVAL once per script on a cold Redis
    const report = await tq.tick({ leaseMs: 2_000 });
    expect(report).toMatchObject({ fetched: 0, more: false });
    expect(report.roundTrips).toBeLessThanOrEqual(3);
    expect(await h.redis.hlen(`${h.prefix}ticks`)).toBe(0);
    // The lease hash keeps the last reply, so a late replay of finish is answered, then expires.
    const ttl = await h.redis.pttl(`${h.prefix}tick:${report.tickId}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2_000);
  });

  it("registers the tick and its queues with a lease while it runs", async () => {
    let during: { registry: Record<string, string>; ttl: number; inproc: number } | undefined;
    const tq = h.make(
      {
        look: async (_args, ctx) => {
          const registry = await h.redis.hgetall(`${h.prefix}ticks`);
          const [id] = Object.keys(registry);
          during = {
            registry,
            ttl: await h.redis.pttl(`${h.prefix}tick:${id}`),
            inproc: await h.redis.llen(`${h.prefix}inproc:${id}:${ctx.queue}`),
          };
        },
      },
      { queues: ["a", "b"] },
    );
    await tq.enqueue("look", [], { queue: "b" });
    const report = await tq.tick({ leaseMs: 5_000 });
    expect(Object.keys(during!.registry)).toEqual([report.tickId]);
    expect(Object.values(during!.registry)[0]!).toMatch(/^\d+ 5000 a b$/);
    expect(during!.ttl).toBeGreaterThan(3_000);
    expect(during!.inproc).toBe(1);
    expect(await h.redis.hlen(`${h.prefix}ticks`)).toBe(0);
  });

  it("counts Sidekiq's processed and failed stats, daily too", async () => {
    const tq = h.make(
      {
        ok: () => {},
        bad: () => {
          throw new Error("no");
        },
      },
      { maxRetries: 0 },
    );
    await tq.enqueueBulk([
      { name: "ok", args: [] },
      { name: "ok", args: [] },
      { name: "bad", args: [], retry: true },
    ]);
    await tq.tick();
    const [sec] = await h.redis.time();
    const day = new Date(Number(sec) * 1000).toISOString().slice(0, 10);
    expect(await h.redis.mget(`${h.prefix}stat:processed`, `${h.prefix}stat:failed`)).toEqual(["3", "1"]);
    expect(await h.redis.mget(`${h.prefix}stat:processed:${day}`, `${h.prefix}stat:failed:${day}`)).toEqual(["3", "1"]);
    expect(await h.redis.ttl(`${h.prefix}stat:processed:${day}`)).toBeGreaterThan(0);
  });

  it("runs at most `concurrency` handlers at once", async () => {
    let running = 0;
    let peak = 0;
    const tq = h.make({
      slow: async () => {
        peak = Math.max(peak, ++running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
      },
    });
    await tq.enqueueBulk(Array.from({ length: 40 }, () => ({ name: "slow", args: [] })));
    const report = await tq.tick({ batch: 40, concurrency: 4 });
    expect(report.succeeded).toBe(40);
    expect(peak).toBe(4);
  });

  it("wraps every execution in middleware, outermost first", async () => {
    const order: string[] = [];
    const tq = h.make({ work: (args: [string]) => void order.push(`run ${args[0]}`) });
    tq.use(async (job, ctx, next) => {
      order.push(`outer ${job.name} ${ctx.attempt}`);
      await next();
      order.push("outer done");
    }).use(async (_job, _ctx, next) => {
      order.push("inner");
      return next();
    });
    await tq.enqueue("work", ["x"]);
    await tq.tick();
    expect(order).toEqual(["outer work 1", "inner", "run x", "outer done"]);
  });

  it("a plain (non-async) middleware that calls next and returns nothing waits for the handler, once", async () => {
    const runs: string[] = [];
    const tq = h.make({
      work: async (args: [string]) => {
        await new Promise((r) => setTimeout(r, 20));
        runs.push(args[0]);
      },
    });
    // JavaScript users write Sidekiq-style middleware: call next, return nothing
    tq.use((_job, _ctx, next) => {
      void next();
    });
    await tq.enqueue("work", ["x"]);
    const report = await tq.tick();
    expect(report).toMatchObject({ succeeded: 1, retried: 0, dead: 0 });
    expect(runs).toEqual(["x"]);
    expect(await h.redis.zcard(`${h.prefix}retry`)).toBe(0);
  });

  it("a plain middleware that does not call next skips the job: it succeeds without running", async () => {
    let ran = false;
    const tq = h.make({ work: () => void (ran = true) });
    tq.use(() => undefined);
    await tq.enqueue("work", []);
    expect(await tq.tick()).toMatchObject({ succeeded: 1, retried: 0 });
    expect(ran).toBe(false);
  });

  it("a middleware that throws fails the job like its handler would", async () => {
    let ran = false;
    const tq = h.make({ work: () => void (ran = true) });
    tq.use(async () => {
      throw new Error("blocked by middleware");
    });
    await tq.enqueue("work", []);
    const report = await tq.tick();
    expect(ran).toBe(false);
    expect(report.retried).toBe(1);
    const [job] = await h.redis.zrange(`${h.prefix}retry`, "0", "-1");
    expect(JSON.parse(job!).error_message).toBe("blocked by middleware");
  });
});
