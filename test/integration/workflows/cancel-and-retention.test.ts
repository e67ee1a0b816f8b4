// Cancelling a run: while it sleeps or waits it never resumes (an event
// finds no wait); mid-step the step's ctx.signal aborts within about a
// second and no further step starts. An ended run is not cancelled. Runs
// that ended are removed after workflowRetentionMs.
import { describe, expect, it } from "vitest";
import { WorkflowFailedError } from "../../../src/index.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(adapterCases)("cancelling workflow runs over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-cancel");

  it("a sleeping or waiting run, cancelled, never resumes", async () => {
    const after: string[] = [];
    const tq = h.make(
      {},
      {
        workflows: {
          nap: {
            run: async (_: null, step) => [
              await step.sleep("nap", 300),
              await step.run("after", () => after.push("nap")),
            ],
          },
          wait: {
            run: async (_: null, step) => [
              await step.waitForEvent("go", { event: "go" }),
              await step.run("after", () => after.push("wait")),
            ],
          },
        },
      },
    );
    const nap = await tq.workflows.start("nap", null);
    const wait = await tq.workflows.start("wait", null);
    await tq.tick({ budgetMs: 1_000 });
    expect(await tq.workflows.cancel(nap)).toBe("cancelled");
    expect(await tq.workflows.cancel(wait)).toBe("cancelled");
    expect(await tq.workflows.cancel(wait)).toBe("cancelled");
    expect(await tq.workflows.sendEvent("go")).toBe(0);
    await pause(350);
    await tq.tick({ budgetMs: 1_000 });
    expect(after).toEqual([]);
    await expect(tq.workflows.result(nap)).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await tq.workflows.get(wait))?.status).toBe("cancelled");
    expect(await h.redis.keys(`${h.prefix}wf:wait:*`)).toEqual([]);
    await expect(tq.workflows.cancel("nope")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("mid-step, the step's signal aborts and no further step starts; an ended run stays as it ended", async () => {
    const seen: string[] = [];
    const tq = h.make(
      {},
      {
        workflows: {
          long: {
            run: async (_: null, step) => {
              await step.run("long", (ctx) => {
                seen.push("started");
                return new Promise((resolve) =>
                  ctx.signal.addEventListener("abort", () => resolve(seen.push("aborted"))),
                );
              });
              await step.run("next", () => seen.push("next"));
            },
          },
          quick: { run: async () => 1 },
        },
      },
    );
    const id = await tq.workflows.start("long", null);
    const quick = await tq.workflows.start("quick", null);
    const ticking = tq.tick({ budgetMs: 10_000 });
    while (!seen.includes("started")) await pause(10);
    const asked = performance.now();
    expect(await tq.workflows.cancel(id)).toBe("cancelled");
    await ticking;
    expect(performance.now() - asked).toBeLessThan(3_000);
    expect(seen).toEqual(["started", "aborted"]);
    expect((await tq.workflows.get(id))?.status).toBe("cancelled");
    expect(await tq.workflows.cancel(quick)).toBe("completed");
  });

  it("removes ended runs after workflowRetentionMs", async () => {
    const tq = h.make({}, { workflowRetentionMs: 1_000, workflows: { w: { run: async () => 1 } } });
    const done = await tq.workflows.start("w", null);
    await tq.tick({ budgetMs: 1_000 });
    expect((await tq.workflows.get(done))?.status).toBe("completed");
    await pause(1_100);
    await tq.tick({ budgetMs: 1_000 });
    expect(await tq.workflows.get(done)).toBeUndefined();
    expect((await tq.workflows.list()).runs).toEqual([]);
    expect(await h.redis.keys(`${h.prefix}wf:*`)).toEqual([`${h.prefix}wf:fence`]);
  });
});
