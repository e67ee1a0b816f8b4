// No starvation: queue `critical` (served first, strict order) holds 40
// while-executing duplicates of one key, the first of which holds the key
// until the test releases it; queue `default` holds 100 plain jobs. Two
// tick processes must run every plain job while the key is busy: the test
// releases the key only once they are all done, so a fetch that kept
// rescanning or blocking on the busy key's jobs would never get there.
// Then the key's 39 others run, one at a time.
import { afterEach, describe, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { flowJobs } from "../../fixtures/flow-jobs.js";
import { adapterCases } from "../../helpers/adapters.js";
import { doneJids, flowTicks, waitFlowIdle, readOverlaps, readStarts, waitDone } from "../../helpers/flow-ticks.js";
import { enqueueQueued } from "../../helpers/flow-queued.js";
import { useHarness } from "../../helpers/harness.js";

const DUPLICATES = 40;
const PLAIN = 100;

describe.each(adapterCases)("a busy key at the head of the first queue over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-starve");
  const ticks = flowTicks(adapterCase, h, {
    QUEUES: "critical,default",
    // No tick dies here: a lease a stalled process keeps (at 1 s, load 38 lost it and a job started twice).
    LEASE_MS: "5000",
    BUDGET_MS: "20000",
    BATCH: "10",
    CONCURRENCY: "10",
  });
  afterEach(() => ticks.stop());

  it("keeps no other job from running, and the key runs once at a time", async () => {
    await ticks.start(2);
    const tq = createTickq({
      redis: h.adapter,
      prefix: h.prefix,
      queues: ["critical", "default"],
      jobs: flowJobs(() => () => {}),
    });
    // The first duplicate holds the key until test:release exists (ms -1); the others take 20 ms.
    // Queued one by one as though none of the key waited (an enqueue would park all but the first):
    // the queue's head is the busy key's, as when they come due from the schedule.
    const hot = await enqueueQueued(
      h,
      tq,
      Array.from({ length: DUPLICATES }, (_, i) => ({
        name: "exclusive" as const,
        args: ["hot", i === 0 ? -1 : 20] as [string, number],
        queue: "critical",
        unique: "while-executing" as const,
      })),
    );
    const plain = await tq.enqueueBulk(
      Array.from({ length: PLAIN }, (_, i) => ({ name: "plain" as const, args: [`p-${i}`, 5] as [string, number] })),
    );
    await ticks.go();

    expect(await waitDone(h, PLAIN, 30_000), ticks.stderr()).toBe(PLAIN);
    const done = new Set(await doneJids(h));
    expect(plain.every((jid) => done.has(jid))).toBe(true);
    expect(hot.some((jid) => done.has(jid))).toBe(false); // the key was busy all along
    const started = await readStarts(h);
    expect(started.filter((s) => s.key === "hot").map((s) => s.jid)).toEqual([hot[0]]);

    await h.redis.set(`${h.prefix}test:release`, "1");
    expect(await waitDone(h, PLAIN + DUPLICATES, 30_000), ticks.stderr()).toBe(PLAIN + DUPLICATES);
    const { overlaps, peak } = await readOverlaps(h);
    expect(overlaps).toEqual([]);
    expect(peak.get("exclusive:hot")).toBe(1);
    // Nothing stays held once the runs are over (a killed tick's slots die with its lease).
    expect(await waitFlowIdle(tq, "exclusive", 15_000)).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
  }, 90_000);
});
