// With partitions, stats() merges each partition's answer: jobs no tick can
// start are one entry and one warning per job name, their counts added up,
// however many partitions met them.
import { describe, expect, it } from "vitest";
import { mergeStats } from "../../src/partitions/merge.js";
import { unstartableWarning, type UnstartableJobs } from "../../src/tick/unstartable-warnings.js";
import type { Stats } from "../../src/stats/types.js";

const report = (count: number, lastSeenAt: number): UnstartableJobs => ({
  name: "report",
  reason: "timeout",
  queue: "default",
  count,
  timeoutMs: 4_000,
  budgetMs: 900,
  lastSeenAt,
});

function part(unstartable: UnstartableJobs[], other: string[] = []): Stats {
  return {
    processed: 0,
    failed: 0,
    expired: 0,
    queues: {},
    latency: {},
    scheduled: 0,
    retry: 0,
    dead: 0,
    deadEvicted: 0,
    cancelled: 0,
    inflight: 0,
    running: 0,
    fetchedWaiting: 0,
    ticks: 0,
    evictionPolicy: "noeviction",
    paused: [],
    lastTickAt: null,
    warnings: [...other, ...unstartable.map(unstartableWarning)],
    unstartable,
    ordered: {},
    schedules: 0,
    flow: {},
    workflows: {},
  };
}

describe("merging partitions' stats", () => {
  it("adds up the counts of jobs no tick can start: one entry and one warning per name", () => {
    const merged = mergeStats([part([report(2, 10)], ["the policy"]), part([]), part([report(3, 20)], ["the policy"])]);
    expect(merged.unstartable).toEqual([report(5, 20)]);
    expect(merged.warnings).toEqual(["the policy", unstartableWarning(report(5, 20))]);
    expect(merged.warnings[1]).toMatch(/^5 job\(s\) of "report" in queue "default" cannot start/);
  });
});
