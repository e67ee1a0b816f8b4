// Per-key concurrency over several processes: 4 tick processes run 60 jobs
// limited to 3 at once per key (handlers of 100–200 ms): the overlap
// detector never sees a 4th live run of the key, and the limit is reached
// (the jobs did run 3 at a time), and every job runs.
import { afterEach, describe, expect, it } from "vitest";
import { createTickq } from "../../src/index.js";
import { flowJobs } from "../fixtures/flow-jobs.js";
import { adapterCases } from "../helpers/adapters.js";
import { doneJids, flowTicks, waitFlowIdle, readOverlaps, waitDone } from "../helpers/flow-ticks.js";
import { useHarness } from "../helpers/harness.js";

const JOBS = 60;

describe.each(adapterCases)("concurrency limit 3 over 4 tick processes over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-limit");
  const ticks = flowTicks(adapterCase, h, { LEASE_MS: "1000", BUDGET_MS: "3000", BATCH: "10", CONCURRENCY: "10" });
  afterEach(() => ticks.stop());

  it("never runs 4 at once, reaches 3, runs every job", async () => {
    await ticks.start(4);
    const tq = createTickq({ redis: h.adapter, prefix: h.prefix, jobs: flowJobs(() => () => {}) });
    const jids = await tq.enqueueBulk(Array.from({ length: JOBS }, (_, i) => ({ name: "limited" as const, args: ["partner", 100 + ((i * 37) % 100)] as [string, number] })));
    await ticks.go();
    expect(await waitDone(h, JOBS, 60_000), ticks.stderr()).toBe(JOBS);
    expect(new Set(await doneJids(h))).toEqual(new Set(jids));
    const { overlaps, peak } = await readOverlaps(h);
    expect(overlaps).toEqual([]);
    expect(peak.get("limited:partner")).toBe(3);
    // Nothing stays held once the runs are over (a killed tick's slots die with its lease).
    expect(await waitFlowIdle(tq, "limited", 15_000)).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
  }, 90_000);
});
