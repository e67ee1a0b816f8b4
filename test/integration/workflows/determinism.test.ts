// The determinism guard: a deployment whose code renames, reorders or
// removes a step the run already completed fails the run with
// TickqNonDeterministic naming the step, instead of answering a stored result
// to the wrong step; adding steps after the last completed one is fine.
import { describe, expect, it } from "vitest";
import type { WorkflowStep } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

type Body = (step: WorkflowStep) => Promise<unknown>;

describe.each(adapterCases)("the workflow determinism guard over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-determinism");

  /** Runs v1 up to its wait, then deploys v2 and sends the event: what became of the run. */
  async function redeploy(v1: Body, v2: Body) {
    const deploy = (body: Body) => h.make({}, { workflows: { flow: { run: (_: null, step) => body(step) } } });
    const old = deploy(v1);
    const id = await old.workflows.start("flow", null);
    await old.tick({ budgetMs: 1_000 });
    expect((await old.workflows.get(id))?.status).toBe("waiting");
    const next = deploy(v2);
    await next.workflows.sendEvent("go");
    await next.tick({ budgetMs: 1_000 });
    return (await next.workflows.get(id))!;
  }
  const one = (step: WorkflowStep) => step.run("one", () => 1);
  const two = (step: WorkflowStep) => step.run("two", () => 2);
  const wait = (step: WorkflowStep) => step.waitForEvent("go", { event: "go" });

  it("a renamed completed step fails the run, naming both names", async () => {
    const run = await redeploy(
      async (s) => [await one(s), await two(s), await wait(s)],
      async (s) => [await one(s), await s.run("deux", () => 2), await wait(s)],
    );
    expect(run.status).toBe("failed");
    expect(run.error).toMatchObject({
      name: "TickqNonDeterministic",
      message: expect.stringMatching(/step 2 .*"two".*"deux"/),
    });
  });

  it("reordered completed steps fail the run", async () => {
    const run = await redeploy(
      async (s) => [await one(s), await two(s), await wait(s)],
      async (s) => [await two(s), await one(s), await wait(s)],
    );
    expect(run.error).toMatchObject({ name: "TickqNonDeterministic", message: expect.stringMatching(/"two"/) });
  });

  it("a removed completed step fails the run", async () => {
    const run = await redeploy(
      async (s) => [await one(s), await two(s), await wait(s)],
      async (s) => [await one(s), await wait(s)],
    );
    expect(run.error?.name).toBe("TickqNonDeterministic");
  });

  it("steps added after the last completed one run", async () => {
    const run = await redeploy(
      async (s) => [await one(s), await wait(s)],
      async (s) => [await one(s), await wait(s), await two(s)],
    );
    expect(run).toMatchObject({ status: "completed", output: [1, null, 2] });
  });
});
