// while-executing under fire: 4 tick processes run 300 jobs over 10 keys,
// handlers sleeping 5–30 ms, while ticks are SIGKILLed at random (and
// replaced). The overlap detector (a mark per key, set on entry by a live
// process, cleared on exit) never sees two live runs of one key, every job
// runs to success, and no lock is left once the dead ticks' leases ran out.
import { afterEach, describe, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { flowJobs } from "../../fixtures/flow-jobs.js";
import { adapterCases } from "../../helpers/adapters.js";
import { doneJids, flowTicks, waitFlowIdle, readOverlaps, waitDone } from "../../helpers/flow-ticks.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

const TICKS = 4;
const JOBS = 300;
const KEYS = 10;
const LEASE_MS = 1_000;

describe.each(adapterCases)("while-executing with ticks SIGKILLed at random over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-kill-race");
  const ticks = flowTicks(adapterCase, h, {
    LEASE_MS: String(LEASE_MS),
    BUDGET_MS: "3000",
    BATCH: "10",
    CONCURRENCY: "10",
  });
  afterEach(() => ticks.stop());

  it("never runs one key twice at once, and runs every job", async () => {
    await ticks.start(TICKS);
    const tq = createTickq({ redis: h.adapter, prefix: h.prefix, jobs: flowJobs(() => () => {}) }); // enqueues only
    const jids = await tq.enqueueBulk(
      Array.from({ length: JOBS }, (_, i) => ({
        name: "exclusive" as const,
        args: [`key-${i % KEYS}`, 5 + ((i * 7) % 25)] as [string, number],
        unique: "while-executing" as const,
      })),
    );
    expect(new Set(jids).size).toBe(JOBS); // while-executing dedupes nothing at enqueue
    await ticks.go();
    let kills = 0;
    // At least 3 kills, however slow each is under load (a loop bounded by time alone made 2 at load 38).
    for (const until = Date.now() + 2_500; kills < 3 || Date.now() < until; kills++) {
      await sleep(300 + Math.random() * 400);
      await ticks.killOne();
    }
    expect(await waitDone(h, JOBS, 60_000), ticks.stderr()).toBe(JOBS);
    expect(new Set(await doneJids(h))).toEqual(new Set(jids));
    const { overlaps, peak } = await readOverlaps(h);
    expect(overlaps).toEqual([]);
    expect(Math.max(...peak.values())).toBe(1);
    // Nothing stays held once the runs are over (a killed tick's slots die with its lease).
    expect(await waitFlowIdle(tq, "exclusive", 15_000)).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
  }, 90_000);
});
