// tickq/testing: the time sources time-sources-follow-advance.test.ts does not cover — a job
// enqueued `at` a time, a cron slot, a workflow step's retry backoff, an ordered job's delay and
// backoff, and kept events' retention and id window — follow the virtual clock. As there, each
// case waits for hours or days, so it passes only if that time is the clock's.
import { describe, expect, it } from "vitest";
import { testingCases, useTestTickqs } from "../../helpers/testing-cases.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe.each(testingCases)("a test tickq's clock over $name", (adapter) => {
  const t = useTestTickqs(adapter);

  it("runs a job enqueued `at` a time once the clock reaches it, not before", async () => {
    const { tq, clock, runUntilIdle } = await t.make({ jobs: { invoice: async () => {} } });
    await tq.enqueue("invoice", [], { at: new Date(clock.now() + DAY) });
    await clock.advance(DAY - 60_000);
    expect((await runUntilIdle()).jobs).toEqual({});
    await clock.advance("2m");
    expect((await runUntilIdle()).jobs).toEqual({ invoice: { succeeded: 1, failed: 0, dead: 0 } });
  });

  it("enqueues a cron slot when the clock reaches it, with the slot's time", async () => {
    const ran: string[] = [];
    const { clock, runUntilIdle } = await t.make({
      jobs: { digest: async (_args: [], ctx) => void ran.push(ctx.jid) },
      schedules: { morning: { cron: "0 9 * * *", timezone: "UTC", job: "digest" } },
    });
    // Tomorrow 09:00 UTC on the test's clock: at least a day of virtual time away from the wall's.
    const nine = Math.floor(clock.now() / DAY) * DAY + DAY + 9 * HOUR;
    await clock.advanceTo(nine - 60_000);
    await runUntilIdle();
    ran.length = 0; // a first tick may catch up a slot it finds just past; what counts is the next one
    await clock.advanceTo(nine + 30_000);
    expect((await runUntilIdle()).jobs.digest?.succeeded).toBe(1);
    expect(ran.map((jid) => Number(jid.split(":")[1]))).toEqual([nine]);
  });

  it("retries a failed workflow step after its backoff on the clock", async () => {
    let calls = 0;
    const { tq, clock, runUntilIdle } = await t.make({
      jobs: {},
      workflows: {
        sync: {
          retry: 1,
          backoff: () => HOUR,
          run: async (_input: Record<string, never>, step) =>
            step.run("call", () => {
              if (++calls === 1) throw new Error("partner down");
              return calls;
            }),
        },
      },
    });
    const id = await tq.workflows.start("sync", {});
    expect((await runUntilIdle()).runs.retrying).toBe(1);
    await clock.advance("59m");
    expect((await runUntilIdle()).runs.completed).toBe(0);
    expect(calls).toBe(1);
    await clock.advance("2m");
    expect((await runUntilIdle()).runs.completed).toBe(1);
    expect(await tq.workflows.result(id)).toBe(2);
  });

  it("holds an ordered job's delay and retry backoff until the clock passes them", async () => {
    const seen: number[] = [];
    const { tq, clock, runUntilIdle } = await t.make({
      jobs: {},
      ordered: {
        ship: {
          perform: async (_id: string, payloads: number[]) => {
            seen.push(...payloads);
            if (seen.length === 1) throw new Error("carrier down");
          },
          retry: 1,
          backoffMs: () => "2h" as const,
        },
      },
    });
    await tq.enqueueOrdered("ship", { id: "parcel-1", payload: 1, delayMs: HOUR });
    await runUntilIdle();
    await clock.advance("59m");
    await runUntilIdle();
    expect(seen).toEqual([]);
    await clock.advance("2m");
    await runUntilIdle();
    expect(seen).toEqual([1]); // failed: held for 2 h
    await clock.advance("119m");
    await runUntilIdle();
    expect(seen).toEqual([1]);
    await clock.advance("2m");
    await runUntilIdle();
    expect(seen).toEqual([1, 1]);
  });

  it("keeps an event for eventRetentionMs of the clock, and its id as long", async () => {
    const { tq, clock, runUntilIdle } = await t.make({
      jobs: {},
      eventRetentionMs: 2 * HOUR,
      workflows: {
        paid: {
          // The run reaches its wait only after the sleep: a kept event is taken then, or not at all.
          run: async (input: { order: string; sleep: "1h" | "3h" }, step) => {
            await step.sleep("settle", input.sleep);
            return step.waitForEvent<string>("paid", { event: "paid", match: input.order, timeout: "7d" });
          },
        },
      },
    });
    const kept = await tq.workflows.start("paid", { order: "o1", sleep: "1h" });
    const expired = await tq.workflows.start("paid", { order: "o2", sleep: "3h" });
    await runUntilIdle();
    await tq.workflows.sendEvent("paid", { match: "o1", data: "first", id: "evt-1" });
    await tq.workflows.sendEvent("paid", { match: "o2", data: "first", id: "evt-2" });
    // Within the retention the id is remembered: a resend records nothing.
    await clock.advance("1h");
    expect(await tq.workflows.sendEvent("paid", { match: "o2", data: "resent", id: "evt-2" })).toBe(0);
    expect((await runUntilIdle()).runs.completed).toBe(1); // o1 woke at 1 h and took its kept event
    expect(await tq.workflows.result(kept)).toBe("first");
    // At 3 h o2 wakes: its events (sent at 0) expired at 2 h, so it waits.
    await clock.advance("2h");
    await runUntilIdle();
    expect((await tq.workflows.get(expired))?.status).toBe("waiting");
    // Past the retention the id is forgotten: the same id is a new event, delivered to the wait.
    expect(await tq.workflows.sendEvent("paid", { match: "o2", data: "again", id: "evt-2" })).toBe(1);
    await runUntilIdle();
    expect(await tq.workflows.result(expired)).toBe("again");
  });
});
