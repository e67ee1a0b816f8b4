// timeoutMs: a tick starts a job only with its whole limit left in the
// budget (else it stays queued for a tick with room), and a run past its
// limit is aborted and fails with TickqTimeout, retried with backoff.
import { describe, expect, it } from "vitest";
import { TickqError } from "../../../src/errors.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

const untilAbort = (signal: AbortSignal) =>
  new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));

describe.each(adapterCases)("timeoutMs over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "timeout");

  it("aborts a run past its timeoutMs and fails it with TickqTimeout, retried with backoff", async () => {
    let reason: unknown;
    const tq = h.make({
      slow: {
        timeoutMs: 60,
        perform: async (_args: [], ctx) =>
          untilAbort(ctx.signal).catch((e: unknown) => {
            reason = e;
            throw e;
          }),
      },
    });
    await tq.enqueue("slow", []);
    const t = Date.now();
    const report = await tq.tick({ budgetMs: 2_000 });
    expect(Date.now() - t).toBeLessThan(1_500);
    expect(report).toMatchObject({ failed: 1, retried: 1, requeued: 0, dead: 0 });
    expect((reason as Error).name).toBe("TickqTimeout");
    const [entry] = await h.redis.zrange(`${h.prefix}retry`, "0", "-1");
    const job = JSON.parse(entry!) as { error_class: string; error_message: string; retry_count: number };
    expect(job).toMatchObject({ error_class: "TickqTimeout", retry_count: 0 });
    expect(job.error_message).toMatch(/ran past its timeoutMs \(60 ms\).*raise its timeoutMs/);
    expect(await h.redis.exists(`${h.prefix}resurrections`, `${h.prefix}interruptions`)).toBe(0);
  });

  it("fails a handler that ignores the abort once the grace period is over, and says it may still run", async () => {
    const tq = h.make({ stubborn: { timeoutMs: 30, perform: () => sleep(1_000) } });
    await tq.enqueue("stubborn", []);
    const report = await tq.tick({ budgetMs: 2_000, graceMs: 50 });
    expect(report).toMatchObject({ retried: 1, abandoned: 0 });
    expect(report.durationMs).toBeLessThan(900);
    expect(h.logged.join("\n")).toMatch(/ignored the abort past its timeoutMs \(30 ms\)/);
  });

  it("a run within its limit succeeds, middleware included", async () => {
    const seen: boolean[] = [];
    const tq = h.make({
      quick: { timeoutMs: 500, perform: async (_a: [], ctx) => void seen.push(ctx.signal.aborted) },
    });
    tq.use(async (_job, ctx, next) => {
      seen.push(ctx.signal.aborted);
      return next();
    });
    await tq.enqueue("quick", []);
    expect(await tq.tick()).toMatchObject({ succeeded: 1, failed: 0 });
    expect(seen).toEqual([false, false]);
  });

  it("starts a job only with its whole timeoutMs left in the budget; it stays queued, at the head, for the next tick", async () => {
    const ran: string[] = [];
    const tq = h.make({
      short: async ([id]: [string]) => {
        ran.push(id);
        await sleep(120);
      },
      long: { timeoutMs: 400, perform: ([id]: [string]) => void ran.push(id) },
    });
    await tq.enqueueBulk([
      { name: "short", args: ["s1"] },
      { name: "long", args: ["L"] },
      { name: "short", args: ["s2"] },
    ]);
    // concurrency 1: by the time "L" comes up, ~120 ms of a 450 ms budget are gone
    const first = await tq.tick({ budgetMs: 450, concurrency: 1 });
    expect(ran).toEqual(["s1", "s2"]);
    expect(first).toMatchObject({ succeeded: 2, requeued: 1, failed: 0, more: true });
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(1);
    expect(await h.redis.exists(`${h.prefix}interruptions`)).toBe(0);
    const second = await tq.tick({ budgetMs: 1_000, concurrency: 1 });
    expect(second).toMatchObject({ succeeded: 1, requeued: 0, more: false });
    expect(ran).toEqual(["s1", "s2", "L"]);
  });

  it("fetches nothing more once a job waits for a fresh tick", async () => {
    const tq = h.make({ long: { timeoutMs: 300, perform: () => sleep(10) }, short: () => sleep(100) });
    await tq.enqueueBulk([
      { name: "short", args: [] },
      ...Array.from({ length: 30 }, () => ({ name: "long" as const, args: [] })),
    ]);
    const report = await tq.tick({ budgetMs: 350, batch: 5, concurrency: 1 });
    // the short job ran; the first long job no longer fitted, so the tick stopped fetching after its batch
    expect(report.succeeded).toBe(1);
    expect(report.fetched).toBe(5);
    expect(report.more).toBe(true);
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(30);
  });

  it("leaves a job longer than a whole tick queued, says how to fix it, and does not report more for it", async () => {
    const tq = h.make({ huge: { timeoutMs: 60_000, perform: () => {} }, small: () => {} });
    await tq.enqueueBulk([
      { name: "huge", args: [] },
      { name: "small", args: [] },
    ]);
    const report = await tq.tick({ budgetMs: 1_000 });
    expect(report).toMatchObject({ succeeded: 1, requeued: 1, more: false });
    expect(h.logged.join("\n")).toMatch(
      /job huge has timeoutMs 60000 but this tick's whole budget is 1000 ms.*TICKQ_TICK_BUDGET_MS/,
    );
    expect(await h.redis.llen(`${h.prefix}queue:default`)).toBe(1);
    expect((await tq.tick({ budgetMs: 61_000 })).succeeded).toBe(1);
  });

  it("refuses a nonsense timeoutMs at createTickq", () => {
    for (const bad of [0, -1, Number.NaN, "5" as unknown as number]) {
      expect(() => h.make({ j: { timeoutMs: bad, perform: () => {} } })).toThrow(TickqError);
    }
    expect(() => h.make({ j: { timeoutMs: 0, perform: () => {} } })).toThrow(/jobs\.j\.timeoutMs must be/);
  });
});
