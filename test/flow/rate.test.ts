// A rate limit over several processes: 4 tick processes run 50 jobs limited
// to 10 starts per key per second. The limit is a sliding window: at most
// 10 starts in any second, by Redis' clock when the fetch admits a job.
// Each run reads its admission time back from the limit's start log (by
// its ctx.fence), so the check is exact: no 11 admissions fall within one
// second, and the 50 span at least 4 seconds. (The handlers' own clocks
// would not do: a fetched job may wait in its tick for a slot or for the
// lease to be confirmed, by a lag that varies.) None is lost; a deferred
// job used up no retry (every run is a first attempt, each job started once).
import { afterEach, describe, expect, it } from "vitest";
import { createTickq } from "../../src/index.js";
import { flowJobs, RATE } from "../fixtures/flow-jobs.js";
import { adapterCases } from "../helpers/adapters.js";
import { doneJids, flowTicks, waitFlowIdle, readStarts, waitDone } from "../helpers/flow-ticks.js";
import { useHarness } from "../helpers/harness.js";

const JOBS = 50;

describe.each(adapterCases)("rate limit 10 per second over 4 tick processes over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-rate");
  const ticks = flowTicks(adapterCase, h, { LEASE_MS: "1000", BUDGET_MS: "3000", BATCH: "20", CONCURRENCY: "20" });
  afterEach(() => ticks.stop());

  it("starts at most 10 a second, loses none, uses up no retry", async () => {
    await ticks.start(4);
    const tq = createTickq({ redis: h.adapter, prefix: h.prefix, jobs: flowJobs(() => () => {}) });
    const jids = await tq.enqueueBulk(Array.from({ length: JOBS }, () => ({ name: "rated" as const, args: ["api", 0] as [string, number] })));
    await ticks.go();
    expect(await waitDone(h, JOBS, 60_000), ticks.stderr()).toBe(JOBS);
    expect(new Set(await doneJids(h))).toEqual(new Set(jids));

    const starts = await readStarts(h);
    expect(starts.map((s) => s.jid).sort()).toEqual([...jids].sort()); // each started once
    expect(starts.every((s) => s.attempt === 1)).toBe(true);
    const at = starts.map((s) => s.admittedAt!).sort((a, b) => a - b);
    expect(at.every((t) => t > 0), "every run found its admission in the start log").toBe(true);
    const crowded = at.slice(RATE.limit).map((t, i) => t - at[i]!).filter((gap) => gap < RATE.periodMs);
    expect(crowded, "11 admissions within less than a second").toEqual([]);
    expect(at.at(-1)! - at[0]!).toBeGreaterThanOrEqual((JOBS / RATE.limit - 1) * RATE.periodMs);
    expect((await tq.stats()).retry).toBe(0);
    // Nothing stays held once the runs are over (a killed tick's slots die with its lease).
    expect(await waitFlowIdle(tq, "rated", 15_000)).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
  }, 90_000);
});
