// tickq/testing: every time tickq reads follows the virtual clock. Each case waits for a time
// far longer than the test runs (an hour, days), so it passes only if that time is the
// clock's, moved by advance, and fails if anything read the wall clock instead.
import { describe, expect, it } from "vitest";
import { testingCases, useTestTickqs } from "../../helpers/testing-cases.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe.each(testingCases)("a test tickq's clock over $name", (adapter) => {
  const t = useTestTickqs(adapter);

  it("makes a delayed job due when advanced past its delay, not before", async () => {
    const { tq, clock, runUntilIdle } = await t.make({ jobs: { mail: async () => {} } });
    await tq.enqueue("mail", [], { delayMs: HOUR });
    expect((await runUntilIdle()).jobs).toEqual({});
    await clock.advance(HOUR - 60_000);
    expect((await runUntilIdle()).jobs).toEqual({});
    await clock.advance("1m");
    expect((await runUntilIdle()).jobs).toEqual({ mail: { succeeded: 1, failed: 0, dead: 0 } });
  });

  it("runs a retry when advanced past its backoff", async () => {
    let runs = 0;
    const jobs = {
      flaky: async () => {
        if (++runs === 1) throw new Error("first try fails");
      },
    };
    const { tq, clock, runUntilIdle } = await t.make({ jobs });
    await tq.enqueue("flaky", []);
    expect((await runUntilIdle()).jobs.flaky).toEqual({ succeeded: 0, failed: 1, dead: 0 });
    expect((await tq.stats()).retry).toBe(1);
    await clock.advance("1h"); // Sidekiq's first backoff: 15 to 25 s
    expect((await runUntilIdle()).jobs.flaky).toEqual({ succeeded: 1, failed: 0, dead: 0 });
  });

  it("wakes a workflow's sleep, sleepUntil and event timeout when advanced", async () => {
    const { tq, clock, runUntilIdle } = await t.make({
      jobs: {},
      workflows: {
        trial: {
          run: async (input: { until: number }, step) => {
            await step.sleep("three-days", "3d");
            await step.sleepUntil("then", input.until);
            return step.waitForEvent("paid", { event: "paid", match: "u1", timeout: "7d" });
          },
        },
      },
    });
    const id = await tq.workflows.start("trial", { until: clock.now() + 4 * DAY });
    expect((await runUntilIdle()).runs.parked).toBe(1);
    await clock.advance("3d");
    expect((await runUntilIdle()).runs).toMatchObject({ parked: 1, completed: 0 }); // now at sleepUntil
    await clock.advance("1d");
    expect((await runUntilIdle()).runs).toMatchObject({ parked: 1, completed: 0 }); // now waiting for "paid"
    await clock.advance(7 * DAY - 60_000);
    expect((await runUntilIdle()).runs.completed).toBe(0);
    await clock.advance("1m");
    expect((await runUntilIdle()).runs.completed).toBe(1);
    expect(await tq.workflows.result(id)).toBeNull();
  });

  it("enqueues an `every` schedule's slots as the clock reaches them", async () => {
    const { clock, runUntilIdle } = await t.make({
      jobs: { ping: async () => {} },
      schedules: { hourly: { every: HOUR, job: "ping" } },
    });
    const first = await runUntilIdle();
    const before = first.jobs.ping?.succeeded ?? 0;
    await clock.advanceTo(Math.ceil((clock.now() + 1) / HOUR) * HOUR + 1_000);
    expect((await runUntilIdle()).jobs.ping?.succeeded).toBe(1);
    expect(before).toBeLessThanOrEqual(1);
    await clock.advance("1h");
    expect((await runUntilIdle()).jobs.ping?.succeeded).toBe(1);
  });

  it("holds a debounced job for delayMs, and no longer than maxDelayMs", async () => {
    const seen: number[] = [];
    const { tq, clock, runUntilIdle } = await t.make({
      jobs: {
        reindex: {
          perform: async ([, version]: [string, number]) => void seen.push(version),
          debounce: { key: ([doc]: [string, number]) => doc, delayMs: HOUR, maxDelayMs: 90 * 60_000 },
        },
      },
    });
    await tq.enqueue("reindex", ["doc", 1]);
    await clock.advance("50m");
    await tq.enqueue("reindex", ["doc", 2]); // due at +110 min, capped at +90 min
    await clock.advance("39m");
    expect((await runUntilIdle()).jobs).toEqual({});
    await clock.advance("2m");
    expect((await runUntilIdle()).jobs.reindex?.succeeded).toBe(1);
    expect(seen).toEqual([2]);
  });

  it("expires a job whose expiry the clock passed before it started", async () => {
    const { tq, clock, runUntilIdle } = await t.make({ jobs: { code: async () => {} } });
    const jid = await tq.enqueue("code", [], { expiresInMs: HOUR });
    await clock.advance("2h");
    expect((await runUntilIdle()).jobs).toEqual({});
    expect(await tq.jobs.result(jid)).toMatchObject({ state: "expired" });
  });

  it("opens a rate limit's next window when advanced", async () => {
    const { tq, clock, runUntilIdle } = await t.make({
      jobs: {
        call: { perform: async () => {}, rateLimit: { key: () => "partner", limit: 1, periodMs: HOUR } },
      },
    });
    await tq.enqueue("call", []);
    await tq.enqueue("call", []);
    expect((await runUntilIdle()).jobs.call?.succeeded).toBe(1);
    await clock.advance("30m");
    expect((await runUntilIdle()).jobs.call).toBeUndefined();
    await clock.advance("31m");
    expect((await runUntilIdle()).jobs.call?.succeeded).toBe(1);
  });

  it("forgets a jid once idWindowMs has passed on the clock", async () => {
    const { tq, clock, runUntilIdle } = await t.make({ jobs: { once: async () => {} }, idWindowMs: HOUR });
    await tq.enqueue("once", [], { jid: "order-1" });
    await tq.enqueue("once", [], { jid: "order-1" });
    expect((await runUntilIdle()).jobs.once?.succeeded).toBe(1);
    await tq.enqueue("once", [], { jid: "order-1" });
    expect((await runUntilIdle()).jobs).toEqual({});
    await clock.advance("61m");
    await tq.enqueue("once", [], { jid: "order-1" });
    expect((await runUntilIdle()).jobs.once?.succeeded).toBe(1);
  });

  it("ages kept results, history days and finished runs with the clock", async () => {
    const { tq, clock, runUntilIdle } = await t.make({
      jobs: { resize: async () => ({ width: 640 }) },
      keepCompleted: { count: 10, ageMs: HOUR },
      workflowRetentionMs: HOUR,
      workflows: { quick: { run: async (_input: Record<string, never>, step) => step.run("one", () => 1) } },
    });
    const jid = await tq.enqueue("resize", []);
    const id = await tq.workflows.start("quick", {});
    await runUntilIdle();
    expect(await tq.jobs.result(jid)).toMatchObject({ state: "succeeded", value: { width: 640 } });
    expect(await tq.workflows.get(id)).toMatchObject({ status: "completed" });
    const [today] = await tq.stats.history(1);
    expect(today?.processed).toBe(1);
    await clock.advance("1d");
    await tq.enqueue("resize", []); // kept results are trimmed by age as later ones are kept
    await runUntilIdle();
    expect((await tq.jobs.result(jid)).state).not.toBe("succeeded");
    expect(await tq.workflows.get(id)).toBeUndefined();
    const [next, previous] = await tq.stats.history(2);
    expect([next?.processed, previous?.processed]).toEqual([1, 1]);
  });
});
