// tq.workflows.check replays the history of live runs against the code about
// to be deployed, per run's version, without running a step or writing
// anything: a run whose completed step was renamed is listed (with the step
// and the reason), and the same runs pass once the old code is kept under
// `versions`. Ended runs are not checked; a cursor pages through the rest.
import { describe, expect, it } from "vitest";
import type { WorkflowStep } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { snapshot } from "../../helpers/snapshot.js";

type Code = (input: { n: number }, step: WorkflowStep) => Promise<unknown>;

const v1: Code = async (input, step) => {
  const a = await step.run("charge", () => input.n * 2);
  await step.waitForEvent("paid", { event: "paid", match: String(input.n) });
  return step.run("ship", () => a);
};
const renamed: Code = async (input, step) => {
  const a = await step.run("charge-card", () => input.n * 2);
  await step.waitForEvent("paid", { event: "paid", match: String(input.n) });
  return step.run("ship", () => a);
};
const added: Code = async (input, step) => {
  const a = await step.run("charge", () => input.n * 2);
  await step.waitForEvent("paid", { event: "paid", match: String(input.n) });
  await step.run("receipt", () => "sent");
  return step.run("ship", () => a);
};

describe.each(adapterCases)("workflows.check over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-check");

  async function runsWaiting(count: number) {
    const old = h.make({}, { workflows: { order: { run: v1 } } });
    const ids: string[] = [];
    for (let n = 0; n < count; n++) ids.push(await old.workflows.start("order", { n }, { id: `order-${n}` }));
    await old.tick({ budgetMs: 2_000 });
    for (const id of ids) expect((await old.workflows.get(id))?.status).toBe("waiting");
    return ids;
  }

  it("lists a run whose completed step was renamed, and passes once the old version is kept", async () => {
    const [id] = await runsWaiting(1);
    const before = await snapshot(h.redis, h.prefix);
    const next = h.make({}, { workflows: { order: { version: 2, run: renamed } } });
    // Renamed in place, with no version bump: the run would fail at its next execution.
    const inPlace = h.make({}, { workflows: { order: { run: renamed } } });
    expect(await inPlace.workflows.check()).toEqual({
      checked: 1,
      incompatible: [
        {
          runId: id,
          name: "order",
          version: 1,
          step: "charge",
          reason: expect.stringMatching(/"charge".*"charge-card"/),
        },
      ],
    });
    // Bumped without keeping version 1: its runs have no code.
    expect((await next.workflows.check()).incompatible).toEqual([
      { runId: id, name: "order", version: 1, reason: expect.stringMatching(/no version 1 .*versions: \{ 1: … \}/) },
    ]);
    const kept = h.make({}, { workflows: { order: { version: 2, run: renamed, versions: { 1: v1 } } } });
    expect(await kept.workflows.check()).toEqual({ checked: 1, incompatible: [] });
    // Steps added after the parked one replay as they are.
    const grown = h.make({}, { workflows: { order: { run: added } } });
    expect(await grown.workflows.check()).toEqual({ checked: 1, incompatible: [] });
    expect(await snapshot(h.redis, h.prefix)).toEqual(before);
  });

  it("names a run parked at a step the code no longer reaches there, and one whose code throws", async () => {
    const [id] = await runsWaiting(1);
    const moved = h.make(
      {},
      {
        workflows: {
          order: {
            run: async (input: { n: number }, step) => {
              await step.run("charge", () => input.n * 2);
              await step.sleep("cool-off", "1h");
              return step.waitForEvent("paid", { event: "paid", match: String(input.n) });
            },
          },
        },
      },
    );
    expect((await moved.workflows.check()).incompatible).toEqual([
      {
        runId: id,
        name: "order",
        version: 1,
        step: "paid",
        reason: expect.stringMatching(/parked at step 2, "paid", but the code now reaches "cool-off" there/),
      },
    ]);
    const throwing = h.make(
      {},
      {
        workflows: {
          order: {
            run: async (input: { n: number }, step) => {
              const charged = await step.run("charge", () => ({ cents: input.n }));
              if (typeof charged !== "object") throw new Error("charge answers an object now");
              return null;
            },
          },
        },
      },
    );
    expect((await throwing.workflows.check()).incompatible).toEqual([
      { runId: id, name: "order", version: 1, reason: "the code throws: charge answers an object now" },
    ]);
  });

  it("checks live runs only, a page at a time with a cursor, and by name", async () => {
    await runsWaiting(3);
    const tq = h.make({}, { workflows: { order: { run: renamed }, other: { run: v1 } } });
    const quick = h.make({}, { workflows: { order: { run: v1 }, other: { run: async () => "done" } } });
    const done = await quick.workflows.start("other", { n: 9 });
    expect(await quick.workflows.result(done, { drive: true, timeoutMs: 5_000 })).toBe("done");
    const first = await tq.workflows.check({ limit: 2 });
    expect(first).toMatchObject({ checked: 2, cursor: expect.any(String) });
    const rest = await tq.workflows.check({ limit: 2, cursor: first.cursor });
    expect(rest.cursor).toBeUndefined();
    const ids = [...first.incompatible, ...rest.incompatible].map((r) => r.runId).sort();
    expect(ids).toEqual(["order-0", "order-1", "order-2"]);
    expect((await tq.workflows.check({ name: "other" })).checked).toBe(0);
    await expect(tq.workflows.check({ limit: 0 })).rejects.toThrow(/limit must be a whole number from 1/);
    await expect(tq.workflows.check({ cursor: "x" })).rejects.toThrow(/bad cursor/);
  });
});
