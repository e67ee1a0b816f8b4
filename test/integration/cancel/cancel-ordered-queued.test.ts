// tq.jobs.cancel of a queued job with a priority or a group: such a job waits
// in its queue's priority set or its group's set, not in the plain list, and
// cancel must take it out of there — else it answers CONFLICT and the job runs.
import { describe, expect, it } from "vitest";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

describe.each(adapterCases)("cancel of a queued job with a priority or a group over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "cancel-ordered");

  it("takes a queued priority job out of its priority set; it never runs", async () => {
    const ran: string[] = [];
    const tq = h.make({ work: (args: [string]) => void ran.push(args[0]) });
    const keep = await tq.enqueue("work", ["keep"], { priority: 5 });
    const jid = await tq.enqueue("work", ["drop"], { priority: 10 });
    expect(await tq.jobs.cancel(jid)).toEqual({ jid, state: "cancelled", from: "queued" });
    await tq.tick();
    expect(ran).toEqual(["keep"]);
    expect((await tq.jobs.find(jid))?.state).toBe("cancelled");
    expect((await tq.jobs.find(keep))?.state).not.toBe("cancelled");
  });

  it("takes a queued grouped job out of its group's set; the group leaves the ring and the others run", async () => {
    const ran: string[] = [];
    const tq = h.make({
      work: { perform: (args: [string, string]) => void ran.push(args[1]), group: (args: [string, string]) => args[0] },
    });
    await tq.enqueue("work", ["a", "a1"]);
    const jid = await tq.enqueue("work", ["b", "b1"]);
    expect(await tq.jobs.cancel(jid)).toEqual({ jid, state: "cancelled", from: "queued" });
    await tq.tick();
    expect(ran).toEqual(["a1"]);
    expect((await tq.jobs.find(jid))?.state).toBe("cancelled");
  });
});
