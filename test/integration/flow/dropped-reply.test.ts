// The client resends a call whose reply was lost after Redis ran it (ioredis
// after a reconnect, @upstash/redis's retries), with flow jobs in play: 40
// while-executing jobs over 4 keys and until-executed duplicates. Whichever
// call's reply is lost (begin, step, finish, enqueue), every job runs
// exactly once, no key ever runs twice at once, duplicates are answered the
// holder's jid, and no slot or parked job is left behind.
import { afterEach, describe, expect, it } from "vitest";
import { createTickq, type JobContext } from "../../../src/index.js";
import { flowJobs, type FlowArgs } from "../../fixtures/flow-jobs.js";
import { adapterCases } from "../../helpers/adapters.js";
import { openDropping, type DroppingAdapter } from "../../helpers/dropping.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

const QUIET = { info() {}, warn() {}, error() {} };

describe.each(adapterCases)("a dropped reply of a tick with flow jobs, resent, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "flow-dropped");
  let dropping: DroppingAdapter | undefined;
  afterEach(async () => dropping?.close());

  for (const when of ["begin", "step", "finish", "enqueue"] as const) {
    it(`of ${when}: every job runs once, one run of a key at a time, nothing left held`, async () => {
      dropping = await openDropping(adapterCase.name, h.prefix);
      const runs = new Map<string, number>();
      const live = new Map<string, number>();
      const overlaps: string[] = [];
      let dropped: Promise<boolean> = Promise.resolve(true);
      let started = 0;
      const perform =
        () =>
        async ([key]: FlowArgs, ctx: JobContext) => {
          started++;
          runs.set(ctx.jid, (runs.get(ctx.jid) ?? 0) + 1);
          live.set(key, (live.get(key) ?? 0) + 1);
          if (live.get(key)! > 1) overlaps.push(`${key} by ${ctx.jid}`);
          if ((when === "step" && started === 3) || (when === "finish" && started === 41))
            dropped = dropping!.dropNext();
          await sleep(5);
          live.set(key, live.get(key)! - 1);
        };
      const tq = createTickq({ redis: dropping.adapter, prefix: h.prefix, jobs: flowJobs(perform), logger: QUIET });
      const [held] = await tq.enqueueBulk([
        { name: "exclusive", args: ["once", 0] as FlowArgs, unique: "until-executed" },
      ]);
      if (when === "enqueue") dropped = dropping.dropNext();
      const jids = await tq.enqueueBulk([
        ...Array.from({ length: 40 }, (_, i) => ({
          name: "exclusive" as const,
          args: [`k-${i % 4}`, 0] as FlowArgs,
          unique: "while-executing" as const,
        })),
        ...Array.from({ length: 5 }, () => ({
          name: "exclusive" as const,
          args: ["once", 0] as FlowArgs,
          unique: "until-executed" as const,
        })),
      ]);
      expect(await dropped).toBe(true);
      expect(jids.slice(40)).toEqual(Array(5).fill(held));
      if (when === "begin") dropped = dropping.dropNext();
      let succeeded = 0;
      for (let i = 0; i < 20 && succeeded < 41; i++) {
        succeeded += (await tq.tick({ batch: 10, concurrency: 5 })).succeeded;
      }
      expect(await dropped).toBe(true);
      expect(succeeded).toBe(41);
      expect(runs.size).toBe(41);
      for (const [jid, n] of runs) expect(n, jid).toBe(1);
      expect(overlaps).toEqual([]);
      const stats = await tq.stats();
      expect(stats).toMatchObject({ processed: 41, inflight: 0 });
      expect(stats.flow.exclusive).toEqual({ locksHeld: 0, waiting: 0, deferred: 0 });
    });
  }
});
