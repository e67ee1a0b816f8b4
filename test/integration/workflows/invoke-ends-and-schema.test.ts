// step.invoke goes through the door every enqueue does: args the invoked
// job's schema refuses fail the step with BAD_ARGS naming the path, and
// nothing is enqueued. An invoked job that is cancelled (tq.jobs.cancel)
// ends the step as a dead one does, instead of holding the run for ever.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("step.invoke's ends and schema over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-invoke-ends");

  it("args the invoked job's schema refuses fail the step with BAD_ARGS naming the path", async () => {
    const tq = h.make(
      { mail: { schema: v.tuple([v.object({ to: v.pipe(v.string(), v.email()) })]), perform: () => {} } },
      {
        workflows: { send: { retry: 0, run: async (_: null, step) => step.invoke("send", "mail", [{ to: "nope" }]) } },
      },
    );
    const run = await tq.workflows.start("send", null);
    for (let t = 0; t < 3 && (await tq.workflows.get(run))?.status === "running"; t++) await tq.tick({ budgetMs: 600 });
    expect(await tq.workflows.get(run)).toMatchObject({
      status: "failed",
      error: { step: "send", message: expect.stringMatching(/args\[0\]\.to: Invalid email/) },
    });
    expect((await tq.jobs.list("queued")).jobs).toEqual([]);
  });

  it("an invoked job cancelled while it waits fails the step, and the run ends", async () => {
    const tq = h.make(
      { slow: { queue: "held", perform: () => "never" } },
      { workflows: { wait: { retry: 0, run: async (_: null, step) => step.invoke("call", "slow", []) } } },
    );
    await tq.queues.pause("held");
    const run = await tq.workflows.start("wait", null);
    await tq.tick({ budgetMs: 600 });
    const [job] = (await tq.jobs.list("queued", { queue: "held" })).jobs;
    expect(job?.name).toBe("slow");
    expect(await tq.jobs.cancel(job!.jid)).toMatchObject({ state: "cancelled" });
    for (let t = 0; t < 3 && (await tq.workflows.get(run))?.status === "running"; t++) await tq.tick({ budgetMs: 600 });
    expect(await tq.workflows.get(run)).toMatchObject({
      status: "failed",
      error: { step: "call", message: expect.stringMatching(/ended cancelled/) },
    });
  });
});
