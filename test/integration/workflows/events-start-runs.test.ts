// A workflow that declares `trigger: { event, id? }` gets a run of each
// sendEvent of that event, with the event's data as input: idempotent by
// the id the trigger derives (or NAME:EVENTID for an event sent with an id),
// started after the event is recorded, so the run does not take its own
// trigger as a kept event; with partitions, started once, in the partition
// of its id. A bad trigger is refused at createTickq.
import { expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describeOverAdapters(adapterCases, "events start runs over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-trigger");

  const fulfil = {
    trigger: { event: "order.placed", id: (data: { order: string }) => `fulfil:${data.order}` },
    run: async (input: { order: string }, step: import("../../../src/index.js").WorkflowStep) =>
      step.run("ship", () => `shipped ${input.order}`),
  };

  it("each event starts a run with its data, one run per derived id", async () => {
    const tq = h.make({}, { workflows: { fulfil } });
    expect(await tq.workflows.sendEvent("order.placed", { data: { order: "o1" } })).toBe(0);
    expect(await tq.workflows.sendEvent("order.placed", { data: { order: "o1" } })).toBe(0);
    await tq.workflows.sendEvent("order.placed", { data: { order: "o2" } });
    await tq.workflows.sendEvent("order.other", { data: { order: "o3" } });
    const page = await tq.workflows.list({ name: "fulfil" });
    expect(page.runs.map((r) => r.id).sort()).toEqual(["fulfil:o1", "fulfil:o2"]);
    expect(await tq.workflows.result("fulfil:o1", { timeoutMs: 5_000, drive: true })).toBe("shipped o1");
    expect((await tq.workflows.get("fulfil:o2"))?.input).toEqual({ order: "o2" });
  });

  it("without id(), an event id names the run and a resend starts none; no id at all starts one each time", async () => {
    const tq = h.make(
      {},
      { workflows: { audit: { trigger: { event: "user.seen" }, run: async (input: unknown) => input } } },
    );
    await tq.workflows.sendEvent("user.seen", { data: 1, id: "evt_1" });
    await tq.workflows.sendEvent("user.seen", { data: 1, id: "evt_1" });
    expect((await tq.workflows.list()).runs.map((r) => r.id)).toEqual(["audit:evt_1"]);
    await tq.workflows.sendEvent("user.seen", { data: 2 });
    await tq.workflows.sendEvent("user.seen", { data: 2 });
    expect((await tq.workflows.list()).runs).toHaveLength(3);
  });

  it("a triggered run does not take its own event as a kept event; it takes the next", async () => {
    const tq = h.make(
      {},
      {
        workflows: {
          echo: {
            trigger: { event: "ping", id: (data: number) => `echo:${data}` },
            run: async (input: number, step) => [input, await step.waitForEvent("next", { event: "ping" })],
          },
        },
      },
    );
    await tq.workflows.sendEvent("ping", { data: 1 });
    await tq.tick({ budgetMs: 1_000 });
    expect((await tq.workflows.get("echo:1"))?.status).toBe("waiting");
    // It resolves echo:1's wait, and starts echo:2.
    expect(await tq.workflows.sendEvent("ping", { data: 2 })).toBe(1);
    expect(await tq.workflows.result("echo:1", { timeoutMs: 5_000, drive: true })).toEqual([1, 2]);
    expect((await tq.workflows.get("echo:2"))?.status).toBe("waiting");
  });

  it("with partitions, a triggered run starts once, in the partition of its id", async () => {
    const tq = h.make({}, { workflows: { fulfil }, partitions: 3 });
    await tq.workflows.sendEvent("order.placed", { data: { order: "p1" } });
    await tq.workflows.sendEvent("order.placed", { data: { order: "p1" } });
    expect((await tq.workflows.list()).runs.map((r) => r.id)).toEqual(["fulfil:p1"]);
    expect(await tq.workflows.result("fulfil:p1", { timeoutMs: 5_000, drive: true })).toBe("shipped p1");
  });

  it("refuses a bad trigger at createTickq, and an id() that gives no string at sendEvent", async () => {
    const make = (trigger: unknown) => () =>
      createTickq({
        redis: h.adapter,
        prefix: h.prefix,
        jobs: {},
        workflows: { w: { trigger, run: async () => null } as never },
      });
    expect(make("ping")).toThrow(/trigger must be \{ event, id\?\(data\) \}/);
    expect(make({ event: "" })).toThrow(/trigger.event must be a non-empty string/);
    expect(make({ event: "ping", id: "x" })).toThrow(/trigger.id must be a function/);
    expect(make({ event: "ping", ids: () => "x" })).toThrow(/ids/);
    const tq = make({ event: "ping", id: () => 42 })();
    await expect(tq.workflows.sendEvent("ping", { data: 1 })).rejects.toThrow(
      /trigger.id must return a non-empty string for event "ping", got number/,
    );
  });
});
