// Per-key limits over several processes, both at once on the same 4 tick
// processes (one set of processes for the two checks keeps the suite short):
//   concurrency  30 jobs limited to 3 runs at once per key (handlers of
//                80–160 ms): the overlap detector never sees a 4th live run
//                of the key, and the limit is reached (they did run 3 at a
//                time)
//   rate         30 jobs limited to 10 starts per key per second. The limit
//                is a sliding window: at most 10 starts in any second, by
//                Redis' clock when the fetch admits a job. Each run reads
//                its admission time back from the limit's start log (by its
//                ctx.fence), so the check is exact: no 11 admissions within
//                a second, and the 30 span at least 2 seconds. (The
//                handlers' own clocks would not do: a fetched job may wait
//                in its tick for a slot or for the lease to be confirmed.)
//                A deferred job used up no retry: every run is a first
//                attempt, and each job started once
// Every job runs; nothing stays held after.
import { afterEach, describe, expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import { flowJobs, RATE, type FlowArgs } from "../../fixtures/flow-jobs.js";
import { adapterCases } from "../../helpers/adapters.js";
import { doneJids, flowTicks, readOverlaps, readStarts, waitDone, waitFlowIdle } from "../../helpers/flow-ticks.js";
import { useHarness } from "../../helpers/harness.js";

const JOBS = 30;

describe.each(adapterCases)(
  "a concurrency limit of 3 and a rate limit of 10 a second over 4 tick processes over $name",
  (adapterCase) => {
    const h = useHarness(adapterCase, "flow-limits");
    // No tick dies here: a lease a stalled process keeps (at 1 s, load 38 lost it and a job started twice).
    const ticks = flowTicks(adapterCase, h, { LEASE_MS: "5000", BUDGET_MS: "3000", BATCH: "20", CONCURRENCY: "20" });
    afterEach(() => ticks.stop());

    it("never runs 4 of a key at once but reaches 3; starts at most 10 a second; loses none; uses up no retry", async () => {
      await ticks.start(4);
      const tq = createTickq({ redis: h.adapter, prefix: h.prefix, jobs: flowJobs(() => () => {}) });
      const limited = await tq.enqueueBulk(
        Array.from({ length: JOBS }, (_, i) => ({
          name: "limited" as const,
          args: ["partner", 80 + ((i * 37) % 80)] as FlowArgs,
        })),
      );
      const rated = await tq.enqueueBulk(
        Array.from({ length: JOBS }, () => ({ name: "rated" as const, args: ["api", 0] as FlowArgs })),
      );
      await ticks.go();
      expect(await waitDone(h, 2 * JOBS, 60_000), ticks.stderr()).toBe(2 * JOBS);
      expect(new Set(await doneJids(h))).toEqual(new Set([...limited, ...rated]));

      const { overlaps, peak } = await readOverlaps(h);
      expect(overlaps).toEqual([]);
      expect(peak.get("limited:partner")).toBe(3);

      const starts = (await readStarts(h)).filter((s) => s.name === "rated");
      expect(starts.map((s) => s.jid).sort()).toEqual([...rated].sort()); // each started once
      expect(starts.every((s) => s.attempt === 1)).toBe(true);
      const at = starts.map((s) => s.admittedAt ?? 0).sort((a, b) => a - b);
      expect(
        at.every((t) => t > 0),
        "every run found its admission in the start log",
      ).toBe(true);
      const crowded = at
        .slice(RATE.limit)
        .map((t, i) => t - at[i]!)
        .filter((gap) => gap < RATE.periodMs);
      expect(crowded, "11 admissions within less than a second").toEqual([]);
      expect(at.at(-1)! - at[0]!).toBeGreaterThanOrEqual((JOBS / RATE.limit - 1) * RATE.periodMs);
      expect((await tq.stats()).retry).toBe(0);

      // Nothing stays held once the runs are over.
      for (const name of ["limited", "rated"] as const)
        expect(await waitFlowIdle(tq, name, 15_000), name).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
    }, 90_000);
  },
);
