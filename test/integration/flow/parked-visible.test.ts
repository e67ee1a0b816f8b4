// A job waiting on a busy key (parked) is still a job of the app: the jobs
// API finds it by jid and can delete it, and deleting it leaves the
// waiting count right. Otherwise a parked job is invisible to find/list,
// the dashboard and the CLI, and cannot be removed, only counted.
import { describe, expect, it } from "vitest";
import { flowJobs, type FlowArgs } from "../../fixtures/flow-jobs.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

describe.each(adapterCases)("a parked job and the jobs API over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-parked-api");

  it("is found by jid and can be deleted", async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    const tq = h.make(
      flowJobs(() => async () => {
        started = true;
        await released;
      }),
    );
    await tq.enqueue("exclusive", ["k", 0] as FlowArgs, { unique: "while-executing" });
    const holding = tq.tick({ batch: 1, concurrency: 1, budgetMs: 10_000 });
    try {
      for (let i = 0; i < 100 && !started; i++) await sleep(20);
      const parked = await tq.enqueue("exclusive", ["k", 0] as FlowArgs, { unique: "while-executing" });
      expect((await tq.stats()).flow.exclusive!.waiting).toBe(1);
      expect(await tq.jobs.find(parked)).toMatchObject({ jid: parked });
      await tq.jobs.delete(parked);
      expect((await tq.stats()).flow.exclusive!.waiting).toBe(0);
    } finally {
      release();
      await holding;
    }
  });
});
