// A run can end while one of its waits is still parked (the code raced a
// sleep against a wait, and the sleep won). Its end takes the wait down with
// it: an event sent afterwards finds no wait (sendEvent answers 0), writes
// nothing into the ended run, and no key of the run outlives its retention.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(adapterCases)("a run that ends with a wait parked over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-ended-wait");

  it("completed or failed, it leaves no wait: a later event resolves nothing and changes nothing", async () => {
    const tq = h.make(
      {},
      {
        workflowRetentionMs: 1_000,
        eventRetentionMs: 1_000,
        workflows: {
          race: {
            run: async (input: { fail: boolean }, step) => {
              const won = await Promise.race([
                step.sleep("nap", 100).then(() => "nap"),
                step.waitForEvent("ev", { event: "late", match: input.fail ? "f" : "c" }).then(() => "ev"),
              ]);
              if (input.fail) throw new Error(`ended after ${won}`);
              return won;
            },
          },
        },
      },
    );
    const done = await tq.workflows.start("race", { fail: false });
    const failed = await tq.workflows.start("race", { fail: true });
    await tq.tick({ budgetMs: 1_000 });
    expect((await tq.workflows.get(done))?.status).toBe("waiting");
    await pause(150);
    await tq.tick({ budgetMs: 1_000 });
    expect(await tq.workflows.result(done, { timeoutMs: 100 })).toBe("nap");
    expect((await tq.workflows.get(failed))?.status).toBe("failed");
    const before = [await tq.workflows.get(done), await tq.workflows.get(failed)];
    expect(before.map((run) => run?.steps.map((s) => s.status))).toEqual([["completed"], ["completed"]]);

    expect(await tq.workflows.sendEvent("late", { match: "c", data: 1 })).toBe(0);
    expect(await tq.workflows.sendEvent("late", { match: "f", data: 1 })).toBe(0);
    expect([await tq.workflows.get(done), await tq.workflows.get(failed)]).toEqual(before);
    expect(await h.redis.keys(`${h.prefix}wf:wait:*`)).toEqual([]);

    await pause(1_050);
    await tq.tick({ budgetMs: 500 });
    expect(await tq.workflows.get(done)).toBeUndefined();
    // Left: the fence and event sequence counters, and the events' call tokens (they expire with the
    // replay window). The kept events expired with eventRetentionMs.
    const left = (await h.redis.keys(`${h.prefix}wf:*`)).filter(
      (k) => !k.endsWith("wf:fence") && !k.endsWith("wf:eseq") && !k.includes("wf:evt:"),
    );
    expect(left).toEqual([]);
  });
});
