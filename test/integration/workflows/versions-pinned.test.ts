// A run keeps the workflow version it started on: a deploy that bumps
// `version` runs the runs in flight on their own version's code (kept under
// `versions`), and a deployment that lacks a run's version parks the run,
// not fails it, says so in stats().warnings, and leaves it to a deployment
// that has the version (a rolling deploy runs both side by side).
import { describe, expect, it } from "vitest";
import type { WorkflowStep } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

type Code = (input: null, step: WorkflowStep) => Promise<unknown>;

const v1: Code = async (_, step) => {
  const first = await step.run("first", () => "v1-first");
  await step.sleep("nap", "200ms");
  return [first, await step.run("second", () => "v1-second")];
};
const v2: Code = async (_, step) => {
  const first = await step.run("renamed-first", () => "v2-first");
  return [first, await step.run("second", () => "v2-second")];
};

describe.each(adapterCases)("workflow versions pinned over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-versions");

  it("a version-1 run sleeping across a deploy of version 2 completes on version 1's code", async () => {
    const old = h.make({}, { workflows: { flow: { run: v1 } } });
    const before = await old.workflows.start("flow", null);
    await old.tick({ budgetMs: 1_000 });
    expect(await old.workflows.get(before)).toMatchObject({ status: "sleeping", version: 1 });

    const next = h.make({}, { workflows: { flow: { version: 2, run: v2, versions: { 1: v1 } } } });
    const after = await next.workflows.start("flow", null);
    expect(await next.workflows.result(before, { drive: true, timeoutMs: 10_000 })).toEqual(["v1-first", "v1-second"]);
    expect(await next.workflows.result(after, { drive: true, timeoutMs: 10_000 })).toEqual(["v2-first", "v2-second"]);
    expect((await next.workflows.get(after))?.version).toBe(2);
  });

  it("a run whose version the deployment lacks is parked and warned about, then completed by one that has it", async () => {
    const next = h.make({}, { workflows: { flow: { version: 2, run: v2 } } });
    const id = await next.workflows.start("flow", null);
    // An old deployment, still serving beside the new one, claims the version-2 run.
    const old = h.make({}, { workflows: { flow: { run: v1 } } });
    await old.tick({ budgetMs: 1_000 });
    const parked = await old.workflows.get(id);
    expect(parked).toMatchObject({ status: "running", version: 2, steps: [] });
    expect(h.logged.join("\n")).toMatch(/version 2 of workflow "flow", which this deployment does not declare/);
    const { warnings } = await old.stats();
    expect(warnings.join("\n")).toMatch(/runs of workflow "flow" version 2 .* are parked/);
    // Parked for a minute: the new deployment's tick does not see it due before then; bring it due.
    await h.redis.zadd(`${h.prefix}wf:due`, 0, id);
    expect(await next.workflows.result(id, { drive: true, timeoutMs: 10_000 })).toEqual(["v2-first", "v2-second"]);
  });

  it("a run stored without a version reads as, and runs on, version 1", async () => {
    const old = h.make({}, { workflows: { flow: { run: v1 } } });
    const id = await old.workflows.start("flow", null);
    await h.redis.hdel(`${h.prefix}wf:run:${id}`, "version");
    const next = h.make({}, { workflows: { flow: { version: 3, run: v2, versions: { 1: v1 } } } });
    expect((await next.workflows.get(id))?.version).toBe(1);
    expect(await next.workflows.result(id, { drive: true, timeoutMs: 10_000 })).toEqual(["v1-first", "v1-second"]);
  });

  it("a bad version or versions entry is refused, naming the fix", () => {
    const make = (definition: Record<string, unknown>) => () =>
      h.make({}, { workflows: { flow: { run: v1, ...definition } as never } });
    expect(make({ version: 0 })).toThrow(/version must be a whole number ≥ 1, got 0/);
    expect(make({ version: 1.5 })).toThrow(/version must be a whole number ≥ 1/);
    expect(make({ version: 2, versions: { 2: v1 } })).toThrow(/versions\[2\] is the current version/);
    expect(make({ version: 2, versions: { x: v1 } })).toThrow(/versions key "x" must be a whole number/);
    expect(make({ version: 2, versions: { 1: "v1" } })).toThrow(/versions\[1\] must be a function/);
  });
});
