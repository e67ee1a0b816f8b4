// An event's data becomes the result of each wait it resolves, so it is held
// to a step result's limit (256 KB of JSON) as well as to maxJobBytes:
// sendEvent refuses larger data with JOB_TOO_LARGE and the waits go on.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("event data size over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-event-size");

  it("data over 256 KB is refused at sendEvent; data at the limit resolves the wait", async () => {
    const tq = h.make(
      {},
      { workflows: { w: { run: async (_: null, step) => step.waitForEvent("e", { event: "e" }) } } },
    );
    const id = await tq.workflows.start("w", null);
    await tq.tick({ budgetMs: 1_000 });
    const over = "x".repeat(256 * 1024 - 1); // 256 KB + 1 byte as JSON, with its quotes
    await expect(tq.workflows.sendEvent("e", { data: over })).rejects.toMatchObject({
      code: "JOB_TOO_LARGE",
      message: expect.stringMatching(/262144/),
    });
    expect((await tq.workflows.get(id))?.status).toBe("waiting");
    const at = "x".repeat(256 * 1024 - 2);
    expect(await tq.workflows.sendEvent("e", { data: at })).toBe(1);
    await tq.tick({ budgetMs: 1_000 });
    expect(await tq.workflows.result(id, { timeoutMs: 100 })).toBe(at);
  });
});
