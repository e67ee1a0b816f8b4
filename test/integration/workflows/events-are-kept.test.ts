// sendEvent keeps each event for eventRetentionMs, so a wait that parks
// after its event was sent still takes it when its run started first: a
// fast webhook right after `start` is not lost. "First" is a sequence Redis
// assigns, so an event sent before the run started is never taken, even in
// the same millisecond. Two waits of one run on one event and match take two
// events in the order sent; an event id makes a resend a no-op answering 0;
// past its retention an event is no longer taken; with partitions each
// partition keeps it.
import { expect, it } from "vitest";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeOverAdapters(adapterCases, "kept events over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-kept");

  const paid = {
    run: async (input: { order: string }, step: import("../../../src/index.js").WorkflowStep) =>
      step.waitForEvent("paid", { event: "payment.confirmed", match: input.order, timeout: "1h" }),
  };

  it("start then sendEvent at once resolves the wait that parks later", async () => {
    const tq = h.make({}, { workflows: { paid } });
    const id = await tq.workflows.start("paid", { order: "o1" });
    expect(await tq.workflows.sendEvent("payment.confirmed", { match: "o1", data: { amount: 42 } })).toBe(0);
    expect(await tq.workflows.result(id, { timeoutMs: 5_000, drive: true })).toEqual({ amount: 42 });
  });

  it("an event sent before the run started is never taken, even in the same millisecond", async () => {
    const tq = h.make({}, { workflows: { paid } });
    // No pause between them: a millisecond clock could not tell these apart.
    await tq.workflows.sendEvent("payment.confirmed", { match: "o2", data: "stale" });
    const id = await tq.workflows.start("paid", { order: "o2" });
    await tq.tick({ budgetMs: 1_000 });
    expect((await tq.workflows.get(id))?.status).toBe("waiting");
    expect(await tq.workflows.sendEvent("payment.confirmed", { match: "o2", data: "fresh" })).toBe(1);
    expect(await tq.workflows.result(id, { timeoutMs: 5_000, drive: true })).toBe("fresh");
  });

  it("two waits of one run on the same event and match take two events, in the order sent", async () => {
    const tq = h.make(
      {},
      {
        workflows: {
          twice: {
            run: async (_: null, step) => [
              await step.waitForEvent("first", { event: "tick", match: "m" }),
              await step.run("between", () => "x"),
              await step.waitForEvent("second", { event: "tick", match: "m" }),
            ],
          },
          both: {
            run: async (_: null, step) =>
              Promise.all([
                step.waitForEvent("a", { event: "tock", match: "m" }),
                step.waitForEvent("b", { event: "tock", match: "m" }),
              ]),
          },
        },
      },
    );
    const sequential = await tq.workflows.start("twice", null);
    const parallel = await tq.workflows.start("both", null);
    for (const n of [1, 2]) await tq.workflows.sendEvent("tick", { match: "m", data: n });
    expect(await tq.workflows.result(sequential, { timeoutMs: 5_000, drive: true })).toEqual([1, "x", 2]);
    // Parked first, then sent: the delivery may reach either wait first; the first in code takes event 1.
    await tq.tick({ budgetMs: 1_000 });
    expect((await tq.workflows.get(parallel))?.status).toBe("waiting");
    expect(await tq.workflows.sendEvent("tock", { match: "m", data: 1 })).toBe(2);
    await tq.tick({ budgetMs: 1_000 });
    expect((await tq.workflows.get(parallel))?.steps.map((s) => [s.name, s.status])).toEqual([
      ["a", "completed"],
      ["b", "waiting"],
    ]);
    expect(await tq.workflows.sendEvent("tock", { match: "m", data: 2 })).toBe(1);
    expect(await tq.workflows.result(parallel, { timeoutMs: 5_000, drive: true })).toEqual([1, 2]);
  });

  it("an event id makes a resend a no-op that answers 0", async () => {
    const tq = h.make({}, { workflows: { paid } });
    const a = await tq.workflows.start("paid", { order: "o3" });
    const b = await tq.workflows.start("paid", { order: "o3" });
    await tq.tick({ budgetMs: 1_000 });
    expect(await tq.workflows.sendEvent("payment.confirmed", { match: "o3", data: 1, id: "whk_1" })).toBe(2);
    const c = await tq.workflows.start("paid", { order: "o3" });
    // The retried webhook: no kept copy, so the run started since does not take it.
    expect(await tq.workflows.sendEvent("payment.confirmed", { match: "o3", data: 1, id: "whk_1" })).toBe(0);
    await tq.tick({ budgetMs: 1_000 });
    expect((await tq.workflows.get(c))?.status).toBe("waiting");
    // The same id under another event name is another event.
    expect(await tq.workflows.sendEvent("other", { data: 1, id: "whk_1" })).toBe(0);
    expect(await tq.workflows.sendEvent("payment.confirmed", { match: "o3", data: 2, id: "whk_2" })).toBe(1);
    for (const [id, data] of [
      [a, 1],
      [b, 1],
      [c, 2],
    ] as const)
      expect(await tq.workflows.result(id, { timeoutMs: 5_000, drive: true })).toBe(data);
    await expect(tq.workflows.sendEvent("e", { id: "" })).rejects.toThrow(/id must be a non-empty string/);
  });

  it("past eventRetentionMs an event is not taken; 0 keeps none", async () => {
    const short = h.make({}, { workflows: { paid }, eventRetentionMs: 100 });
    const late = await short.workflows.start("paid", { order: "o4" });
    await short.workflows.sendEvent("payment.confirmed", { match: "o4", data: "old" });
    await pause(150);
    await short.tick({ budgetMs: 1_000 });
    expect((await short.workflows.get(late))?.status).toBe("waiting");

    const none = h.make({}, { workflows: { paid }, eventRetentionMs: 0 });
    const run = await none.workflows.start("paid", { order: "o5" });
    await none.workflows.sendEvent("payment.confirmed", { match: "o5", data: "unkept" });
    await none.tick({ budgetMs: 1_000 });
    expect((await none.workflows.get(run))?.status).toBe("waiting");
    expect(await h.redis.keys(`${h.prefix}wf:log:*`)).toEqual([]);
    expect(() => h.make({}, { workflows: { paid }, eventRetentionMs: -1 })).toThrow(/eventRetentionMs must be/);
  });

  it("with partitions, every partition keeps the event: runs in each take it", async () => {
    const tq = h.make({}, { workflows: { paid }, partitions: 3 });
    const ids = await Promise.all(
      Array.from({ length: 9 }, (_, i) => tq.workflows.start("paid", { order: "all" }, { id: `p${i}` })),
    );
    expect(await tq.workflows.sendEvent("payment.confirmed", { match: "all", data: "ok", id: "e1" })).toBe(0);
    expect(await tq.workflows.sendEvent("payment.confirmed", { match: "all", data: "again", id: "e1" })).toBe(0);
    for (const id of ids) expect(await tq.workflows.result(id, { timeoutMs: 5_000, drive: true })).toBe("ok");
  });
});
