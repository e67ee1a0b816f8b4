// Sleeps and waits park a run with no tick held: a sleep resumes after its
// time and not before; a wait resumes with the event's data when sendEvent
// names its event and match, or with null at its timeout; an event sent
// after the run started and before it waits is kept for the wait, one sent
// before the run started is not taken. Parallel steps (Promise.all) run in
// one round and commit together.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(adapterCases)("workflow sleeps and events over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-park");

  it("a sleep resumes after its time and not before", async () => {
    const tq = h.make(
      {},
      {
        workflows: {
          nap: {
            run: async (_: null, step) => [await step.sleep("nap", "1s"), await step.run("after", () => "up")][1],
          },
        },
      },
    );
    const id = await tq.workflows.start("nap", null);
    await tq.tick({ budgetMs: 1_000 });
    const parked = await tq.workflows.get(id);
    expect(parked?.status).toBe("sleeping");
    expect(parked?.steps[0]).toMatchObject({ name: "nap", status: "sleeping", wakeAt: expect.any(Number) });
    expect(parked!.steps[0]!.wakeAt! - parked!.updatedAt).toBe(1_000);
    await tq.tick({ budgetMs: 500 });
    expect((await tq.workflows.get(id))?.status).toBe("sleeping");
    await pause(1_050);
    await tq.tick({ budgetMs: 1_000 });
    expect(await tq.workflows.result(id, { timeoutMs: 100 })).toBe("up");
  });

  it("a wait resumes with the event's data, only for its event and match", async () => {
    const tq = h.make(
      {},
      {
        workflows: {
          onboard: {
            run: async (input: { user: string }, step) =>
              step.waitForEvent("activated", { event: "user.activated", match: input.user, timeout: "1h" }),
          },
        },
      },
    );
    const a = await tq.workflows.start("onboard", { user: "42" });
    const b = await tq.workflows.start("onboard", { user: "43" });
    await tq.tick({ budgetMs: 1_000 });
    expect((await tq.workflows.get(a))?.status).toBe("waiting");
    expect(await tq.workflows.sendEvent("user.activated", { match: "41", data: 1 })).toBe(0);
    expect(await tq.workflows.sendEvent("user.other", { match: "42", data: 1 })).toBe(0);
    expect(await tq.workflows.sendEvent("user.activated", { match: "42", data: { plan: "pro" } })).toBe(1);
    expect(await tq.workflows.sendEvent("user.activated", { match: "42", data: { plan: "again" } })).toBe(0);
    await tq.tick({ budgetMs: 1_000 });
    expect(await tq.workflows.result(a, { timeoutMs: 100 })).toEqual({ plan: "pro" });
    expect((await tq.workflows.get(b))?.status).toBe("waiting");
  });

  it("a wait's timeout resumes it with null; an event sent before the run started is not taken", async () => {
    const tq = h.make(
      {},
      { workflows: { w: { run: async (_: null, step) => step.waitForEvent("e", { event: "e", timeout: 500 }) } } },
    );
    expect(await tq.workflows.sendEvent("e", { data: "early" })).toBe(0);
    const id = await tq.workflows.start("w", null);
    await tq.tick({ budgetMs: 1_000 });
    expect((await tq.workflows.get(id))?.status).toBe("waiting");
    await pause(550);
    await tq.tick({ budgetMs: 1_000 });
    expect(await tq.workflows.result(id, { timeoutMs: 100 })).toBeNull();
    expect(await h.redis.keys(`${h.prefix}wf:wait:*`)).toEqual([]);
  });

  it("an event racing the tick that parks the run is never missed", async () => {
    const tq = h.make(
      {},
      {
        workflows: {
          w: {
            run: async (input: { k: string }, step) => {
              await step.run("first", () => pause(5));
              return step.waitForEvent("e", { event: "e", match: input.k });
            },
          },
        },
      },
    );
    const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => tq.workflows.start("w", { k: String(i) })));
    // Events go out once each while the tick parks the runs: each lands before its wait (kept, taken when
    // the wait parks) or after it (resolves the wait).
    const sending = (async () => {
      for (let i = 0; i < 20; i++) {
        await tq.workflows.sendEvent("e", { match: String(i), data: i });
        await pause(2);
      }
    })();
    await tq.tick({ budgetMs: 1_000 });
    await sending;
    await tq.tick({ budgetMs: 1_000 });
    for (const [i, id] of ids.entries()) {
      expect(await tq.workflows.get(id)).toMatchObject({ status: "completed", output: i });
    }
  });

  it("parallel steps run in one round and each commits once", async () => {
    const started: number[] = [];
    const tq = h.make(
      {},
      {
        workflows: {
          fan: {
            run: async (_: null, step) => {
              const parts = await Promise.all(
                [1, 2, 3].map((n) =>
                  step.run(`part${n}`, async () => {
                    started.push(n);
                    await pause(20);
                    return n * 10;
                  }),
                ),
              );
              await step.sleep("breathe", 0);
              return parts;
            },
          },
        },
      },
    );
    const id = await tq.workflows.start("fan", null);
    const report = await tq.tick({ budgetMs: 1_000 });
    expect(await tq.workflows.result(id, { timeoutMs: 100 })).toEqual([10, 20, 30]);
    expect(started.sort()).toEqual([1, 2, 3]);
    // begin, which claims the run; workflow calls: the three parts' commit, the park (which
    // claims the run again, its 0 ms sleep over); the output rides on finish.
    expect(report.roundTrips).toBe(4);
  });
});
