// A caller that sends an enqueue again after an error (its reply lost, a
// timeout) with the same jid, as the chaos enqueuer and any careful client
// do: a duplicate of a unique key must be answered the holder's jid again,
// not its own jid, which was never pushed and will never run.
import { describe, expect, it } from "vitest";
import { flowJobs, type FlowArgs } from "../../fixtures/flow-jobs.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("a duplicate of a unique key sent again with its jid over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-resend");

  for (const unique of ["until-executed", "coalesce"] as const) {
    it(`${unique}: is answered the holder's jid both times, and only the holder is queued`, async () => {
      const tq = h.make(flowJobs(() => () => {}));
      const holder = await tq.enqueue("exclusive", ["k", 0] as FlowArgs, { unique });
      const first = await tq.enqueue("exclusive", ["k", 0] as FlowArgs, { unique, jid: "dup-1" });
      const again = await tq.enqueue("exclusive", ["k", 0] as FlowArgs, { unique, jid: "dup-1" });
      expect(first).toBe(holder);
      expect(again).toBe(holder);
      expect((await tq.stats()).queues.default).toBe(1);
    });
  }

  for (const unique of ["until-executed", "coalesce"] as const) {
    it(`${unique}: a job enqueued, run and followed by another of its key, sent again, is answered as enqueued, not merged`, async () => {
      const ran: number[] = [];
      const tq = h.make(
        flowJobs(
          () =>
            ([, n]: FlowArgs) =>
              void ran.push(n),
        ),
      );
      expect(await tq.enqueue("exclusive", ["k", 1] as FlowArgs, { unique, jid: "own-1" })).toBe("own-1");
      await tq.tick(); // it ran: its claim ended (until-executed) or its wait claim went at start (coalesce)
      expect(ran).toEqual([1]);
      expect(await tq.enqueue("exclusive", ["k", 2] as FlowArgs, { unique, jid: "own-2" })).toBe("own-2"); // holds the key now
      // The first enqueue sent again (its reply was lost): it was enqueued, so it is answered as such, not merged into own-2.
      expect(await tq.enqueue("exclusive", ["k", 1] as FlowArgs, { unique, jid: "own-1" })).toBe("own-1");
      await tq.tick();
      expect(ran).toEqual([1, 2]);
    });
  }
});
