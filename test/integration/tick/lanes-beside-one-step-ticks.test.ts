// A rolling deploy over HTTP: ticks that keep two steps in flight (lanes,
// lib/tick/replay-call.lua) beside ticks that send one at a time, as a tick of
// the version before did, all on one queue. Lanes live in each tick's own
// lease hash, so neither kind sees the other's: every job runs once, and the
// lane ticks' steps did overlap.
import { expect, it } from "vitest";
import { createTickq } from "../../../src/index.js";
import type { RedisAdapter } from "../../../src/redis/types.js";
import { adapterCases, describeOverAdapters, speaksTcp } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const http = adapterCases.filter((c) => !speaksTcp(c.name));

describeOverAdapters(http, "lane ticks beside one-step ticks over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "lanes-beside");

  it("every job runs once; the lane ticks sent steps in both lanes", async () => {
    const executions = new Map<string, number>();
    const jobs = {
      work: (_a: unknown[], ctx: { jid: string }) => void executions.set(ctx.jid, (executions.get(ctx.jid) ?? 0) + 1),
    };
    const jids = await h.make(jobs).enqueueBulk(Array.from({ length: 3_000 }, (_, i) => ({ name: "work", args: [i] })));
    const connections = Array.from({ length: 4 }, () => adapterCase.open());
    const lanes = new Set<string>();
    try {
      const ticks = connections.map((c, k) => {
        expect(c.adapter.separateRequests).toBe(true);
        // The one-step ticks: the same adapter without separateRequests.
        const redis: RedisAdapter =
          k % 2 === 0
            ? {
                ...c.adapter,
                evalsha: (sha, keys, args) => {
                  const lane = /^\d+([ab])\//.exec(args[5] ?? "")?.[1];
                  if (lane) lanes.add(lane);
                  return c.adapter.evalsha(sha, keys, args);
                },
              }
            : { evalsha: c.adapter.evalsha, eval: c.adapter.eval };
        return createTickq({ redis, prefix: h.prefix, jobs });
      });
      let done = 0;
      for (let round = 0; round < 20 && done < 3_000; round++) {
        const reports = await Promise.all(ticks.map((tq) => tq.tick({ batch: 50, concurrency: 50 })));
        done += reports.reduce((sum, r) => sum + r.succeeded, 0);
      }
      expect(done).toBe(3_000);
    } finally {
      await Promise.all(connections.map((c) => c.close()));
    }
    expect(lanes).toEqual(new Set(["a", "b"]));
    expect(executions.size).toBe(3_000);
    expect([...executions.values()].filter((n) => n !== 1)).toEqual([]);
    expect(new Set(jids)).toEqual(new Set(executions.keys()));
  });
});
