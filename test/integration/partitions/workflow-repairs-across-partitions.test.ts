// Over partitions, a run lives in the partition of its id: a fork whose new
// id falls in another partition than its source reads the source there and
// writes the new run in its own partition; retry reaches the run's partition;
// retryAll and check go through every partition (check's cursor names the
// partition it stopped in).
import { expect, it } from "vitest";
import { partitionOf } from "../../../src/partitions/layout.js";
import { adapterCase, describeOverAdapters } from "../../helpers/adapters.js";
import { breakableWorkflow } from "../../helpers/breakable-workflow.js";
import { useHarness } from "../../helpers/harness.js";

describeOverAdapters([adapterCase("ioredis")], "workflow retry, fork and check over partitions, over $name", (c) => {
  const h = useHarness(c, "part-wf-repair");

  it("forks into another partition, retries and checks in every partition", async () => {
    const { broken, calls, workflows } = breakableWorkflow();
    const tq = h.make({}, { partitions: 3, workflows });
    // Two runs in each partition.
    const candidates = Array.from({ length: 60 }, (_, n) => `r-${n}`);
    const ids = [0, 1, 2].flatMap((k) => candidates.filter((id) => partitionOf(id, 3) === k).slice(0, 2));
    expect(ids).toHaveLength(6);
    for (const [k, id] of ids.entries()) await tq.workflows.start("two", { k }, { id });
    for (const id of ids) await tq.workflows.result(id, { drive: true, timeoutMs: 10_000 }).catch(() => {});

    const source = ids[0]!;
    const elsewhere = Array.from({ length: 20 }, (_, n) => `f-${n}`).find(
      (id) => partitionOf(id, 3) !== partitionOf(source, 3),
    )!;
    broken.now = false;
    expect(await tq.workflows.fork(source, { fromStep: "b", id: elsewhere, input: { k: 40 } })).toBe(elsewhere);
    expect(await tq.workflows.result(elsewhere, { drive: true, timeoutMs: 10_000 })).toBe(1);

    expect(await tq.workflows.retry(ids[1]!)).toEqual({ runId: ids[1], status: "running" });
    expect(await tq.workflows.retryAll({ name: "two", status: "failed" })).toEqual({ retried: 5 });
    for (const id of ids) await tq.workflows.result(id, { drive: true, timeoutMs: 10_000 });
    expect(calls.a).toBe(6);

    // Two live runs in each partition.
    const live = [0, 1, 2]
      .flatMap((k) =>
        Array.from({ length: 60 }, (_, n) => `w-${n}`)
          .filter((id) => partitionOf(id, 3) === k)
          .slice(0, 2),
      )
      .sort();
    const waiting = h.make(
      {},
      {
        partitions: 3,
        workflows: { two: { run: async (_: { k: number }, step) => step.waitForEvent("go", { event: "go" }) } },
      },
    );
    for (const id of live) await waiting.workflows.start("two", { k: 0 }, { id });
    await waiting.tick({ budgetMs: 1_000 });
    const first = await tq.workflows.check({ limit: 2 });
    expect(first).toMatchObject({ checked: 2, cursor: expect.stringMatching(/^\d\./) });
    let checked = first.checked;
    const incompatible = [...first.incompatible];
    for (let cursor = first.cursor; cursor !== undefined; ) {
      const page = await tq.workflows.check({ limit: 2, cursor });
      checked += page.checked;
      incompatible.push(...page.incompatible);
      cursor = page.cursor;
    }
    expect(checked).toBe(6);
    expect(incompatible.map((r) => r.runId).sort()).toEqual(live);
  });
});
